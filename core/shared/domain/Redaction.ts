/**
 * Cutting secrets out of text as received (a request's path or query), whatever their encoding:
 * a secret is found in the text decoded once and cut from the text as written, which otherwise
 * stays as it was; one still found after decoding again (encoded twice or more) cannot be cut so
 * exactly, so the whole text is withheld. What a secret looks like is the caller's rule. Pure.
 */

/** Where a rule finds secrets in a decoded text: `[start, end)` spans, in any order. */
export type Finder = (decoded: string) => Iterable<readonly [number, number]>

/** What stands where a secret was. */
export const redacted = "[redacted]"

const asciiEscape = /%([0-7][0-9A-Fa-f])/g
const unescapeAscii = (text: string) =>
  text.replace(asciiEscape, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))

/** The text decoded once (ASCII escapes only: every secret is ASCII) and where each of its characters starts in `text`. */
const decodeOnce = (text: string) => {
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
  return { decoded, starts }
}

const spansOf = (decoded: string, finders: ReadonlyArray<Finder>) =>
  finders.flatMap((find) => [...find(decoded)]).sort((a, b) => a[0] - b[0])

/**
 * `text` with every secret the finders see replaced by `[redacted]`, also where it is
 * percent-encoded, or `withheld` when one is encoded more than once. A few passes over the text:
 * linear in its length.
 */
export const redactFound = (text: string, finders: ReadonlyArray<Finder>, withheld: string): string => {
  const { decoded, starts } = decodeOnce(text)
  let result = ""
  let copied = 0
  for (const [start, end] of spansOf(decoded, finders)) {
    // A span overlapping the one cut before widens that cut.
    if (starts[start]! < copied) copied = Math.max(copied, starts[end]!)
    else {
      result += `${text.slice(copied, starts[start])}${redacted}`
      copied = starts[end]!
    }
  }
  result += text.slice(copied)
  let deeper = result
  for (let pass = 0; pass < 4; pass++) {
    const next = unescapeAscii(deeper)
    if (next === deeper) break
    deeper = next
  }
  return spansOf(deeper, finders).length > 0 ? withheld : result
}

/** The spans of `pattern`'s matches (a global pattern), or of its first group where it has one. */
export const matchesOf =
  (pattern: RegExp, accept: (match: string) => boolean = () => true): Finder =>
  (decoded) =>
    [...decoded.matchAll(pattern)]
      .filter((match) => accept(match[1] ?? match[0]))
      .map((match): readonly [number, number] => {
        const secret = match[1] ?? match[0]
        const start = match.index + match[0].lastIndexOf(secret)
        return [start, start + secret.length]
      })
