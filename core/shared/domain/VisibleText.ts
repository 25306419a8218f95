/**
 * Text from outside (a name a portal or an operator gave, a path a client sent) as a person is
 * shown it: every character that acts rather than shows (C0 and C1 controls, DEL, the
 * bidirectional controls, line and paragraph separators) is written as its code point, `[U+001B]`,
 * so it can neither drive a terminal (set its title, clear its screen) nor reorder what is read
 * around it (U+202E). Everything else is kept as it is. Pure.
 */

/** Whether the code point acts on a terminal or on the order of text instead of being shown. */
export const isHidden = (code: number): boolean =>
  code < 0x20 ||
  (code >= 0x7f && code <= 0x9f) ||
  code === 0x61c ||
  code === 0x200e ||
  code === 0x200f ||
  (code >= 0x2028 && code <= 0x202e) ||
  (code >= 0x2066 && code <= 0x2069)

const codePoint = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, "0")}`

const replaceHidden = (text: string, shown: (code: number) => string): string => {
  let out = ""
  for (const char of text) {
    const code = char.codePointAt(0)!
    out += isHidden(code) ? shown(code) : char
  }
  return out
}

/** The text with each hidden character shown as `[U+XXXX]`. */
export const visible = (text: string): string => replaceHidden(text, (code) => `[${codePoint(code)}]`)

/**
 * HTML with each hidden character shown as `[U+XXXX]`, but for the whitespace of its own layout
 * (tab, line feed, carriage return), which a browser shows as a space anyway. Safe on markup as a
 * whole: the replacement holds no character that markup gives a meaning to.
 */
export const visibleMarkup = (markup: string): string =>
  replaceHidden(markup, (code) =>
    code === 0x09 || code === 0x0a || code === 0x0d ? String.fromCharCode(code) : `[${codePoint(code)}]`
  )

/**
 * JSON text whose every hidden character is a `\u` escape: the same value to a parser, inert on a
 * terminal (`JSON.stringify` escapes only the C0 controls).
 */
export const inertJson = (value: unknown, indent?: number): string =>
  // The C0 controls left in the text are the indentation's line breaks, outside any string.
  replaceHidden(JSON.stringify(value, null, indent), (code) =>
    code < 0x20 ? String.fromCharCode(code) : `\\u${code.toString(16).padStart(4, "0")}`
  )
