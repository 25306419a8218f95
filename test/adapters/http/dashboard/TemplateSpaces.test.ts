/**
 * The dashboard's pages are `htm` templates, and htm drops whitespace that holds a line break at
 * either end of a text, as JSX does: `from\n  ${address}` renders "from127.0.0.1". This reads
 * every template of the dashboard and finds text that loses the space it needs beside an
 * interpolation or an inline element (a word, or a colon, glued to what follows or precedes it).
 * Block elements are left out: the space lost beside a `<p>` or a `<li>` is never seen.
 */
import { globSync, readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"

interface Part {
  readonly text: string
  readonly line: number
}

/** Every `html` template of `source`, nested ones included, as the static text between its slots. */
const templatesOf = (source: string): ReadonlyArray<ReadonlyArray<Part>> => {
  const found: Array<ReadonlyArray<Part>> = []
  const lineAt = (index: number) => source.slice(0, index).split("\n").length
  const tagged = (backtick: number) => /\bhtml\s*$/.test(source.slice(Math.max(0, backtick - 8), backtick))
  const quoted = (start: number) => {
    let i = start + 1
    while (i < source.length && source[i] !== source[start]) i += source[i] === "\\" ? 2 : 1
    return i + 1
  }
  const startsRegex = (i: number) =>
    source[i + 1] !== "/" && source[i + 1] !== "*" && /[(=,:[!&|?{};]\s*$/.test(source.slice(Math.max(0, i - 4), i))
  const regex = (start: number) => {
    let i = start + 1
    let inClass = false
    while (i < source.length && (source[i] !== "/" || inClass)) {
      if (source[i] === "\\") i++
      else if (source[i] === "[") inClass = true
      else if (source[i] === "]") inClass = false
      i++
    }
    return i + 1
  }
  /** Code up to `until` (a closing brace at depth 0, or the end): strings, comments and templates skipped. */
  const code = (start: number, untilBrace: boolean): number => {
    let depth = 0
    let i = start
    while (i < source.length) {
      const c = source[i]
      const next = source[i + 1]
      if (c === "/" && next === "/") i = source.indexOf("\n", i) < 0 ? source.length : source.indexOf("\n", i)
      else if (c === "/" && next === "*") i = source.indexOf("*/", i) < 0 ? source.length : source.indexOf("*/", i) + 2
      else if (c === '"' || c === "'") i = quoted(i)
      else if (c === "/" && startsRegex(i)) i = regex(i)
      else if (c === "`") i = template(i + 1, tagged(i))
      else {
        if (c === "{") depth++
        if (c === "}" && untilBrace && depth-- === 0) return i + 1
        i++
      }
    }
    return i
  }
  const template = (start: number, keep: boolean): number => {
    const parts: Array<Part> = []
    let i = start
    let from = start
    while (i < source.length) {
      if (source[i] === "\\") i += 2
      else if (source[i] === "`") {
        parts.push({ text: source.slice(from, i), line: lineAt(from) })
        if (keep) found.push(parts)
        return i + 1
      } else if (source[i] === "$" && source[i + 1] === "{") {
        parts.push({ text: source.slice(from, i), line: lineAt(from) })
        i = code(i + 2, true)
        from = i
      } else i++
    }
    return i
  }
  code(0, false)
  return found
}

const inlineElements = new Set(
  "a abbr b code data em i kbd mark output q s samp small span strong sub sup time u var".split(" ")
)

type Token =
  | { readonly kind: "slot" }
  | { readonly kind: "open" | "close"; readonly name: string }
  | { readonly kind: "text"; readonly text: string; readonly line: number }

/** A template's text, tags and slots (interpolations outside a tag), in order. */
const tokensOf = (parts: ReadonlyArray<Part>) => {
  const tokens: Array<Token> = []
  let inTag = false
  let tag = ""
  parts.forEach((part, index) => {
    if (index > 0 && !inTag) tokens.push({ kind: "slot" })
    let text = ""
    let line = part.line
    let textLine = part.line
    for (const c of part.text) {
      if (inTag && c === ">") {
        inTag = false
        const [, closing, name] = /^(\/?)([a-zA-Z0-9-]*)/.exec(tag) ?? []
        if (name) tokens.push({ kind: closing ? "close" : "open", name: name.toLowerCase() })
        tag = ""
        textLine = line
      } else if (inTag) tag += c
      else if (c === "<") {
        if (text !== "") tokens.push({ kind: "text", text, line: textLine })
        text = ""
        inTag = true
      } else text += c
      if (c === "\n") line++
    }
    if (!inTag && text !== "") tokens.push({ kind: "text", text, line: textLine })
  })
  return tokens
}

/** The texts of `source`'s templates that lose a space they need, as `line: text`. */
const gluedTexts = (source: string) =>
  templatesOf(source).flatMap((parts) => {
    const tokens = tokensOf(parts)
    return tokens.flatMap((token, index) => {
      if (token.kind !== "text") return []
      const before = tokens[index - 1]
      const after = tokens[index + 1]
      // What htm keeps of the text: line breaks at either end go, with the spaces around them.
      const kept = token.text.replace(/^\s*\n\s*|\s*\n\s*$/g, "")
      if (kept === "") return []
      const gluedBefore =
        (before?.kind === "slot" || (before?.kind === "close" && inlineElements.has(before.name))) &&
        /^\s*\n/.test(token.text) &&
        /^[^.,;:)!?’”…]/u.test(kept)
      const gluedAfter =
        (after?.kind === "slot" || (after?.kind === "open" && inlineElements.has(after.name))) &&
        /\n\s*$/.test(token.text) &&
        /[^(“‘[]$/u.test(kept)
      return gluedBefore || gluedAfter ? [`${token.line}: ${kept.trim().slice(0, 60)}`] : []
    })
  })

/** Samples are written with `#{` for a slot's opening, which the linter would take for a mistake. */
const slot = "$" + "{"

describe("the dashboard's templates", () => {
  it("find a word glued to an interpolation or an inline element, before it or after it", () => {
    const sample = [
      "const a = html`<p>on #{at} from",
      "  <strong>#{address}</strong>.</p>`",
      "const b = html`<li>#{field}:",
      "  #{from}",
      "  → #{to}</li>`",
      "const c = html`<p>",
      "  Kept as is: #{x}, #{y}.",
      "</p><ul>",
      "  #{rows}",
      "</ul>`"
    ]
      .join("\n")
      .replaceAll("#{", slot)
    expect(gluedTexts(sample)).toEqual(["1: from", "3: :", "4: →"])
  })

  it("read nested templates, strings, comments and regular expressions without losing their place", () => {
    const sample = [
      "// a comment with a ` and a #{",
      'const re = /["`]/ // `',
      "const page = html`<p>#{items.map((item) => html`<span>#{item}</span>",
      "  and`)}</p>`"
    ]
      .join("\n")
      .replaceAll("#{", slot)
    expect(gluedTexts(sample)).toEqual(["3: and"])
  })

  it("keep every space a reader needs", () => {
    const glued = globSync("adapters/http/dashboard/**/*.ts").flatMap((file) =>
      gluedTexts(readFileSync(file, "utf8")).map((found) => `${file}:${found}`)
    )
    expect(glued).toEqual([])
  })
})
