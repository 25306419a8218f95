/**
 * Entity tags (RFC 9110 8.8.3) and `If-None-Match` (13.1.2). A tag is strong and derived from
 * the exact bytes of the answer in identity coding; each content coding is its own
 * representation, so its tag carries the coding's name (`"<digest>-br"`). `If-None-Match` is read
 * in one pass without building a list, so thousands of tags cost linear time and no memory.
 */
import { hash } from "node:crypto"
import type { Coding } from "./ContentCoding.ts"

/**
 * The digest of a body: SHA-256, 192 bits in base64url. Any change to the bytes changes it, so an
 * equal tag proves an unchanged answer.
 */
export const digest = (bytes: Uint8Array): string => hash("sha256", bytes, "base64url").slice(0, 32)

/** The strong tag of the representation of `digest`'s bytes in `coding`. */
export const of = (digestOfBytes: string, coding: Coding): string =>
  coding === "identity" ? `"${digestOfBytes}"` : `"${digestOfBytes}-${coding}"`

/**
 * Whether an `If-None-Match` field value matches `tag` (a strong tag, quotes included): `*`, or a
 * listed tag equal to it by the weak comparison (a `W/` prefix ignored). Malformed members are
 * skipped up to the next comma.
 */
export const noneMatch = (field: string, tag: string): boolean => {
  const length = field.length
  let i = 0
  while (i < length) {
    const c = field[i]
    if (c === " " || c === "\t" || c === ",") {
      i++
      continue
    }
    if (c === "*") return true
    if (c === "W" && field[i + 1] === "/") i += 2
    if (field[i] === '"') {
      const close = field.indexOf('"', i + 1)
      if (close < 0) return false
      if (close + 1 - i === tag.length && field.startsWith(tag, i)) return true
      i = close + 1
      continue
    }
    // Not a tag: skip the member.
    const comma = field.indexOf(",", i)
    if (comma < 0) return false
    i = comma + 1
  }
  return false
}

/**
 * Whether an `If-None-Match` field value matches every current answer (`*`), whatever its tag:
 * for an answer written as it is read, which has none. No listed tag can equal one holding a
 * line break, so only `*` matches.
 */
export const matchesAny = (field: string): boolean => noneMatch(field, '"\n"')
