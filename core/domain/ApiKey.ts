/**
 * The API key format: `<brand>_live_<secret><checksum>`. The secret is 33 base62 characters
 * (196 bits, from the caller's cryptographic randomness); the checksum is the CRC-32 of everything
 * before it, in 6 base62 characters, so a mistyped, truncated or foreign key is refused without
 * any storage lookup. Pure: randomness and hashing come from the caller.
 */
import { Schema } from "effect"

export const Brand = Schema.String.check(
  Schema.isPattern(/^[a-z][a-z0-9]{1,14}$/, {
    expected: "2 to 15 lower-case letters or digits, starting with a letter"
  })
)

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const secretLength = 33
const checksumLength = 6
/** The random bytes a key needs: 24 bytes, 192 bits, all carried by the 33-character secret. */
export const secretBytes = 24

const base62 = (value: bigint, width: number): string => {
  let text = ""
  for (let rest = value; rest > 0n; rest /= 62n) text = alphabet[Number(rest % 62n)] + text
  return text.padStart(width, "0")
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

/** CRC-32 (IEEE) of the text's UTF-8 bytes; keys are ASCII, so of its characters. */
export const crc32 = (text: string): number => {
  let crc = 0xffffffff
  for (const byte of new TextEncoder().encode(text)) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

export const prefix = (brand: string) => `${brand}_live_`

const checksum = (text: string) => base62(BigInt(crc32(text)), checksumLength)

/** A new key from `secretBytes` random bytes. */
export const makeApiKey = (brand: string, random: Uint8Array): string => {
  if (random.length !== secretBytes) throw new RangeError(`an API key needs ${secretBytes} random bytes`)
  const value = random.reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n)
  const body = `${prefix(brand)}${base62(value, secretLength)}`
  return `${body}${checksum(body)}`
}

/** Whether `key` has this brand's form and a correct checksum; says nothing of its existence. */
export const isWellFormedApiKey = (brand: string, key: string): boolean => {
  const head = prefix(brand)
  if (key.length !== head.length + secretLength + checksumLength || !key.startsWith(head)) return false
  const rest = key.slice(head.length)
  for (const char of rest) if (!alphabet.includes(char)) return false
  const body = key.slice(0, key.length - checksumLength)
  return key.slice(body.length) === checksum(body)
}

/** What may be shown of a key after its creation: its prefix and four characters. */
export const displayStart = (brand: string, key: string): string => key.slice(0, prefix(brand).length + 4)

// A key's secret wherever it stands: after `_live_`, letters and digits. Any brand's, since a
// key pasted from another deployment is a secret too.
const keySecret = /_live_[0-9A-Za-z]+/g

// The secret as written, found in the text decoded once, cut from the text as written.
const redactDecodedOnce = (text: string): string => {
  if (!text.includes("_") && !text.includes("%")) return text
  // The decoded text (ASCII escapes only: a key is ASCII) and where each of its characters starts in `text`.
  let decoded = ""
  const starts: Array<number> = []
  for (let i = 0; i < text.length; ) {
    starts.push(i)
    const hex = text[i] === "%" ? text.slice(i + 1, i + 3) : ""
    if (/^[0-7][0-9A-Fa-f]$/.test(hex)) {
      decoded += String.fromCharCode(Number.parseInt(hex, 16))
      i += 3
    } else {
      decoded += text[i]
      i += 1
    }
  }
  starts.push(text.length)
  let redacted = ""
  let copied = 0
  for (const match of decoded.matchAll(keySecret)) {
    const secretStart = starts[match.index + "_live_".length]!
    redacted += `${text.slice(copied, secretStart)}[redacted]`
    copied = starts[match.index + match[0].length]!
  }
  return redacted + text.slice(copied)
}

const hasKeySecret = /_live_[0-9A-Za-z]/
const asciiEscape = /%([0-7][0-9A-Fa-f])/g
const unescapeAscii = (text: string) =>
  text.replace(asciiEscape, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))

/**
 * The text with every key-shaped secret replaced by `[redacted]`, also where it is percent-encoded
 * (`pr%5Flive%5F...`): the secret is found in the decoded text and cut from the text as written,
 * which otherwise stays as received. A key encoded more than once (`%255F`) cannot be cut out so
 * exactly: then the whole text is withheld. A few passes over the text: linear in its length.
 */
export const redactKeys = (text: string): string => {
  const redacted = redactDecodedOnce(text)
  let decoded = redacted
  for (let pass = 0; pass < 4; pass++) {
    const next = unescapeAscii(decoded)
    if (next === decoded) break
    decoded = next
  }
  return hasKeySecret.test(decoded) ? "[redacted: an encoded key]" : redacted
}
