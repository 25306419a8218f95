import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { isCalendarDate } from "../../../core/shared/domain/Values.ts"

// The calendar as the platform knows it, for any year from 1 (Date.UTC maps years below 100 to
// the 1900s, so the year is set on its own).
const existsInCalendar = (year: number, month: number, day: number) => {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

const pad = (value: number, width: number) => String(value).padStart(width, "0")

describe("isCalendarDate", () => {
  it("agrees with the calendar for every YYYY-MM-DD text", () => {
    fc.assert(
      fc.property(fc.nat(9999), fc.nat(99), fc.nat(99), (year, month, day) => {
        expect(isCalendarDate(`${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`)).toBe(
          existsInCalendar(year, month, day)
        )
      }),
      { numRuns: 20_000 }
    )
  })

  it("knows leap years and month lengths", () => {
    expect(isCalendarDate("2024-02-29")).toBe(true)
    expect(isCalendarDate("2000-02-29")).toBe(true)
    expect(isCalendarDate("1900-02-29")).toBe(false)
    expect(isCalendarDate("2026-02-29")).toBe(false)
    expect(isCalendarDate("2026-04-31")).toBe(false)
    expect(isCalendarDate("2026-12-31")).toBe(true)
    expect(isCalendarDate("0001-01-01")).toBe(true)
    expect(isCalendarDate("0000-01-01")).toBe(false)
  })

  it("refuses any other form", () => {
    for (const text of [
      "2026-1-05",
      "2026-01-5",
      "20260105",
      "2026/01/05",
      "2026-01-05T00:00",
      " 2026-01-05",
      "２０２６-01-05",
      "2026-0a-05",
      ""
    ]) {
      expect(isCalendarDate(text)).toBe(false)
    }
    fc.assert(
      fc.property(fc.string(), (text) => {
        if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) expect(isCalendarDate(text)).toBe(false)
      }),
      { numRuns: 5_000 }
    )
  })
})
