/**
 * Recovery codes for the dashboard's second factor, as text: ten codes a set, each `xxxxx-xxxxx`
 * of ten symbols from Crockford's base32 in lower case (no i, l, o or u, so nothing is misread),
 * 50 bits each, and the one form a typed code is compared in. Pure; depends on nothing.
 */

/** Crockford's base32: digits and letters without i, l, o and u. */
export const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
export const codesPerSet = 10
export const symbolsPerCode = 10
/** One random byte per symbol. */
export const bytesPerSet = codesPerSet * symbolsPerCode
/** At or below this many left, the user is warned to make a new set. */
export const fewLeft = 3

const shape = new RegExp(`^[${alphabet}]{${symbolsPerCode}}$`)

/**
 * A set of codes from `bytesPerSet` random bytes, a symbol from each byte's low five bits: 256 is
 * a multiple of 32, so every symbol is as likely as any other.
 */
export const codesFromBytes = (bytes: Uint8Array): ReadonlyArray<string> => {
  if (bytes.length !== bytesPerSet) throw new RangeError(`a set needs ${bytesPerSet} bytes, got ${bytes.length}`)
  return Array.from({ length: codesPerSet }, (_, code) => {
    const symbols = Array.from(bytes.subarray(code * symbolsPerCode, (code + 1) * symbolsPerCode), (byte) =>
      alphabet.charAt(byte & 31)
    ).join("")
    return `${symbols.slice(0, symbolsPerCode / 2)}-${symbols.slice(symbolsPerCode / 2)}`
  })
}

/**
 * The form a typed code is stored and compared in: lower case, without spaces and dashes, and
 * Crockford's readings of look-alikes (i and l as 1, o as 0). Undefined when it is no recovery
 * code at all, such as a six-digit code of an authenticator app.
 */
export const normalize = (typed: string): string | undefined => {
  const canonical = typed.toLowerCase().replace(/[\s-]/g, "").replace(/[il]/g, "1").replace(/o/g, "0")
  return shape.test(canonical) ? canonical : undefined
}
