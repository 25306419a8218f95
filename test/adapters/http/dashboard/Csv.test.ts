/**
 * The CSV cells of the dashboard's exports: read back by an RFC 4180 reader, every cell gives its
 * text, except that text a spreadsheet would run as a formula comes back with a `'` before it.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { cell, line } from "../../../../adapters/http/dashboard/frame/Csv.ts"
import { decimalAmount } from "../../../../adapters/http/dashboard/frame/Parts.ts"
import { readRecord } from "../../../support/CsvReader.ts"

const formulaStart = ["=", "+", "-", "@", "\t", "\r"]
/** What no spreadsheet runs: text that starts with none of them, or a plain number (`-12.50`). */
const inert = (text: string) =>
  !formulaStart.some((start) => text.startsWith(start)) || /^-[0-9]+(\.[0-9]+)?$/.test(text)

describe("Csv", () => {
  it("a record reads back cell for cell; a formula-looking cell gains a leading quote and nothing else", () =>
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string(),
            fc.constantFrom(
              "=1+1",
              "+SUM(A1)",
              "-2+3",
              "-2",
              "-0.05",
              "@cmd",
              '=HYPERLINK("x")',
              "a,b",
              'say "hi"',
              "a\r\nb"
            )
          ),
          {
            minLength: 1,
            maxLength: 6
          }
        ),
        (cells) => {
          const read = readRecord(line(cells)).cells
          assert.deepStrictEqual(
            read,
            cells.map((text) => (inert(text) ? text : `'${text}`))
          )
          for (const value of read) assert.isTrue(inert(value))
        }
      )
    ))

  it("numbers and nothing are cells too", () => {
    assert.strictEqual(cell(12.5), "12.5")
    assert.strictEqual(cell(null), "")
    assert.strictEqual(cell(-3), "-3", "a negative number is a number, not a formula")
    assert.strictEqual(cell("-3-4"), "'-3-4")
  })

  it("an amount is a plain decimal in its currency's digits that reads back as its minor units", () =>
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
        fc.constantFrom(["EUR", 2], ["SEK", 2], ["JPY", 0], ["KWD", 3]),
        (cents, [currency, digits]) => {
          const text = decimalAmount(cents, currency as string)
          assert.match(
            text,
            digits === 0 ? /^-?(0|[1-9][0-9]*)$/ : new RegExp(`^-?(0|[1-9][0-9]*)\\.[0-9]{${digits}}$`)
          )
          assert.strictEqual(BigInt(text.replace(".", "")), BigInt(cents), "no minor unit lost")
          assert.strictEqual(cell(text), text, "never guarded, so a sheet reads a number")
        }
      )
    ))

  it("amounts as finance reads them", () => {
    assert.strictEqual(decimalAmount(123450, "EUR"), "1234.50")
    assert.strictEqual(decimalAmount(-5, "EUR"), "-0.05")
    assert.strictEqual(decimalAmount(1234, "JPY"), "1234")
    assert.strictEqual(decimalAmount(1, "KWD"), "0.001")
  })
})
