/**
 * The API key format: `<brand>_live_<secret><checksum>`. The secret is 33 base62 characters
 * (196 bits, from the caller's cryptographic randomness); the checksum is the CRC-32 of everything
 * before it, in 6 base62 characters, so a mistyped, truncated or foreign key is refused without
 * any storage lookup. Pure: randomness and hashing come from the caller.
 */
import { Schema } from "effect"
import * as Redaction from "../../shared/domain/Redaction.ts"

export const Brand = Schema.String.check(
  Schema.isPattern(/^[a-z][a-z0-9]{1,14}$/, {
    expected: "2 to 15 lower-case letters or digits, starting with a letter"
  })
)

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const secretLength = 33
const checksumLength = 6
/**
 * What a key may do beyond reading. Keys are read-only unless created with a permission;
 * `webhooks` lets a key manage its organization's webhook endpoints.
 */
export const Permission = Schema.Literals(["webhooks"])
export type Permission = typeof Permission.Type
export const permissions: ReadonlyArray<Permission> = Permission.literals

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

/** Whether `token` is the part of one of this brand's keys after its prefix: 39 characters whose checksum holds. */
export const isKeySecret = (brand: string, token: string): boolean =>
  isWellFormedApiKey(brand, `${prefix(brand)}${token}`)

// A key's secret after `_live_`, in any case (`PR_LIVE_...`), letters and digits: any brand's,
// since a key pasted from another deployment is a secret too.
const afterLivePrefix = Redaction.matchesOf(/_live_([0-9A-Za-z]+)/gi)

const runsOfSecretLength = new RegExp(`[0-9A-Za-z]{${secretLength + checksumLength},}`, "g")

// A secret without its prefix: 39 letters and digits whose checksum holds, also with up to three
// letters or digits stuck to it (`q=x<secret>`: a letter stuck to it must not hide it), each of a
// run's few windows tried. A longer run is cut whole, unchecked: it may hide a secret, and trying
// every window of it (a text encoding and a checksum each) cost 80 ms for a 15 KB query, on every
// request before its key is known. No id or value of the API is that long.
const bareSecret =
  (brand: string): Redaction.Finder =>
  (decoded) => {
    const width = secretLength + checksumLength
    const spans: Array<readonly [number, number]> = []
    for (const run of decoded.matchAll(runsOfSecretLength)) {
      if (run[0].length > width + 3) {
        spans.push([run.index, run.index + run[0].length])
        continue
      }
      for (let start = 0; start + width <= run[0].length; start++) {
        if (isKeySecret(brand, run[0].slice(start, start + width))) {
          spans.push([run.index + start, run.index + start + width])
          break
        }
      }
    }
    return spans
  }

/**
 * The text with every key secret replaced by `[redacted]`: whatever follows `_live_` (any brand,
 * any case), and, given the brand of this service's keys, a secret pasted without its prefix
 * (found by its checksum). Also where it is percent-encoded (`pr%5Flive%5F...`), keeping the text
 * as written around it; a key encoded more than once (`%255F`) withholds the whole text.
 */
export const redactKeys = (text: string, brand?: string): string =>
  Redaction.redactFound(
    text,
    brand === undefined ? [afterLivePrefix] : [afterLivePrefix, bareSecret(brand)],
    "[redacted: an encoded key]"
  )
