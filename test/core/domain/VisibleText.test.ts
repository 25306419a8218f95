/** Hostile text made visible: the laws of what a person is shown of a name or a path. */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { inertJson, isHidden, visible, visibleMarkup } from "../../../core/shared/domain/VisibleText.ts"

// Text rich in what a probe sends: controls, bidirectional overrides, separators, and plain text.
const hostile = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0x9f }).map((code) => String.fromCharCode(code)),
      fc.constantFrom("\u061c", "\u200e", "\u200f", "\u2028", "\u2029", "\u202a", "\u202e", "\u2066", "\u2069"),
      fc.string({ unit: "grapheme", maxLength: 4 })
    ),
    { maxLength: 30 }
  )
  .map((parts) => parts.join(""))

const hiddenIn = (text: string, kept: ReadonlyArray<string> = []) =>
  [...text].filter((char) => isHidden(char.codePointAt(0)!) && !kept.includes(char))

describe("visible", () => {
  it("leaves no character that acts on a terminal or on the order of text", () =>
    fc.assert(fc.property(hostile, (text) => assert.deepStrictEqual(hiddenIn(visible(text)), []))))

  it("keeps text without such characters exactly", () =>
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        fc.pre(hiddenIn(text).length === 0)
        assert.strictEqual(visible(text), text)
      })
    ))

  it("names each one by its code point", () => {
    assert.strictEqual(visible("\u001b]0;x\u0007"), "[U+001B]]0;x[U+0007]")
    assert.strictEqual(visible("Globex\u202egnp.exe"), "Globex[U+202E]gnp.exe")
    assert.strictEqual(visible("a\nb\u0085c"), "a[U+000A]b[U+0085]c")
  })
})

describe("visibleMarkup", () => {
  it("keeps the layout's whitespace and shows every other hidden character", () =>
    fc.assert(
      fc.property(hostile, (text) => assert.deepStrictEqual(hiddenIn(visibleMarkup(text), ["\t", "\n", "\r"]), []))
    ))
})

describe("inertJson", () => {
  it("is the same value to a parser, and holds no hidden character but the indentation's line breaks", () =>
    fc.assert(
      fc.property(fc.dictionary(hostile, hostile, { maxKeys: 4 }), (value) => {
        const text = inertJson(value, 2)
        assert.deepStrictEqual(JSON.parse(text), value)
        assert.deepStrictEqual(hiddenIn(text, ["\n"]), [])
      })
    ))
})
