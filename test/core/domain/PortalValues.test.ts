import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { addDays, parseAmountCents, parseDate } from "../../../core/receivables/domain/PortalValues.ts"

/** Writes cents the way a portal with the given conventions would. */
const write = (cents: number, decimal: "." | ",", grouping: string, decimals: 0 | 1 | 2) => {
  const abs = Math.abs(cents)
  const units = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, grouping)
  const fraction = (abs % 100).toString().padStart(2, "0")
  const shown = decimals === 2 ? fraction : decimals === 1 ? fraction.slice(0, 1) : ""
  return `${cents < 0 ? "-" : ""}${units}${shown === "" ? "" : decimal + shown}`
}

describe("parseAmountCents", () => {
  it("reads back exactly what any portal convention wrote, with no float error", () =>
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 }),
        fc.constantFrom("." as const, "," as const),
        fc.constantFrom("", "thousands", " ", "'"),
        (cents, decimal, grouping) => {
          const separator = grouping === "thousands" ? (decimal === "." ? "," : ".") : grouping
          assert.strictEqual(parseAmountCents(write(cents, decimal, separator, 2), decimal), cents)
          // One decimal means tenths, none means whole units.
          const tenths = Math.trunc(cents / 10) * 10
          assert.strictEqual(parseAmountCents(write(tenths, decimal, separator, 1), decimal), tenths)
          const whole = Math.trunc(cents / 100) * 100
          assert.strictEqual(parseAmountCents(write(whole, decimal, separator, 0), decimal), whole)
        }
      ),
      { numRuns: 5_000 }
    ))

  it("handles the examples portals show", () => {
    assert.strictEqual(parseAmountCents("1,234.56", "."), 123456)
    assert.strictEqual(parseAmountCents("1234.5", "."), 123450)
    assert.strictEqual(parseAmountCents("1.234,56", ","), 123456)
    assert.strictEqual(parseAmountCents("0.1", "."), 10)
    assert.strictEqual(parseAmountCents("(12.00)", "."), -1200)
    assert.strictEqual(parseAmountCents(" 7 ", "."), 700)
    assert.strictEqual(parseAmountCents("0.29", "."), 29)
  })

  it("refuses what is not an amount in the configured convention", () => {
    for (const [text, decimal] of [
      ["1,234.56", ","],
      ["1.234,56", "."],
      ["12.345", "."],
      ["1,23.45", "."],
      ["abc", "."],
      ["", "."],
      ["1e3", "."],
      ["--5", "."],
      ["99999999999999999999", "."]
    ] as const) {
      assert.isUndefined(parseAmountCents(text, decimal), `${text} with ${decimal}`)
    }
  })
})

describe("parseDate", () => {
  it("reads every calendar date back in each order and separator", () =>
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1990-01-01T00:00:00Z"), max: new Date("2090-12-31T00:00:00Z"), noInvalidDate: true }),
        fc.constantFrom("-", "/", "."),
        (date, sep) => {
          const iso = date.toISOString().slice(0, 10)
          const [y, m, d] = iso.split("-") as [string, string, string]
          assert.strictEqual(parseDate(`${y}${sep}${m}${sep}${d}`, "YMD"), iso)
          assert.strictEqual(parseDate(`${d}${sep}${m}${sep}${y}`, "DMY"), iso)
          assert.strictEqual(parseDate(`${m}${sep}${d}${sep}${y}`, "MDY"), iso)
        }
      )
    ))

  it("ignores a time, pads single digits, refuses impossible dates", () => {
    assert.strictEqual(parseDate("2026-11-21T10:00:00Z", "YMD"), "2026-11-21")
    assert.strictEqual(parseDate("1.2.2026", "DMY"), "2026-02-01")
    assert.strictEqual(parseDate("2/1/2026", "MDY"), "2026-02-01")
    assert.isUndefined(parseDate("30.02.2026", "DMY"))
    assert.isUndefined(parseDate("2026-13-01", "YMD"))
    assert.isUndefined(parseDate("21/11/26", "DMY"))
    assert.isUndefined(parseDate("yesterday", "YMD"))
  })
})

describe("addDays", () => {
  it("crosses month, leap day and year ends", () => {
    assert.strictEqual(addDays("2024-02-28", 1), "2024-02-29")
    assert.strictEqual(addDays("2025-02-28", 1), "2025-03-01")
    assert.strictEqual(addDays("2026-12-31", 1), "2027-01-01")
    assert.strictEqual(addDays("2026-11-21", 30), "2026-12-21")
  })

  it("is undone by its opposite, and moves the weekday by the days modulo 7", () =>
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1990-01-01"), max: new Date("2090-01-01"), noInvalidDate: true }),
        fc.integer({ min: -400, max: 400 }),
        (date, days) => {
          const iso = date.toISOString().slice(0, 10)
          const moved = addDays(iso, days)
          assert.strictEqual(addDays(moved, -days), iso)
          const weekday = (d: string) => new Date(`${d}T12:00:00Z`).getUTCDay()
          assert.strictEqual(weekday(moved), (((weekday(iso) + days) % 7) + 7) % 7)
        }
      )
    ))
})
