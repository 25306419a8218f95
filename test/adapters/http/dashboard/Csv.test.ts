/**
 * The CSV cells of the dashboard's exports: read back by an RFC 4180 reader, every cell gives its
 * text, except that text a spreadsheet would run as a formula comes back with a `'` before it.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { cell, line } from "../../../../adapters/http/dashboard/frame/Csv.ts"

/** A reader of one RFC 4180 record (with its CRLF), as a spreadsheet reads it. */
const readRecord = (text: string): Array<string> => {
  const cells: Array<string> = []
  let i = 0
  for (;;) {
    let value = ""
    if (text[i] === '"') {
      i++
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') {
          value += '"'
          i += 2
        } else if (text[i] === '"') {
          i++
          break
        } else value += text[i++]
      }
    } else {
      while (text[i] !== "," && !(text[i] === "\r" && text[i + 1] === "\n")) value += text[i++]
    }
    cells.push(value)
    if (text[i] === ",") i++
    else return cells
  }
}

const formulaStart = ["=", "+", "-", "@", "\t", "\r"]

describe("Csv", () => {
  it("a record reads back cell for cell; a formula-looking cell gains a leading quote and nothing else", () =>
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string(),
            fc.constantFrom("=1+1", "+SUM(A1)", "-2", "@cmd", '=HYPERLINK("x")', "a,b", 'say "hi"', "a\r\nb")
          ),
          {
            minLength: 1,
            maxLength: 6
          }
        ),
        (cells) => {
          const read = readRecord(line(cells))
          assert.deepStrictEqual(
            read,
            cells.map((text) => (formulaStart.some((start) => text.startsWith(start)) ? `'${text}` : text))
          )
          for (const value of read) assert.isFalse(formulaStart.some((start) => value.startsWith(start)))
        }
      )
    ))

  it("numbers and nothing are cells too", () => {
    assert.strictEqual(cell(12.5), "12.5")
    assert.strictEqual(cell(null), "")
    assert.strictEqual(cell(-3), "'-3")
  })
})
