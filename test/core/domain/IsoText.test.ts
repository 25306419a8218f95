import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { isoDay, isoInstant } from "../../../core/shared/domain/IsoText.ts"

// Every instant a Date can hold, with the years this service sees drawn far more often.
const anyInstant = fc.oneof(
  fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
  fc.integer({ min: -8.64e15, max: 8.64e15 })
)

describe("ISO text", () => {
  it("writes an instant exactly as toISOString does", () => {
    fc.assert(
      fc.property(anyInstant, (millis) => {
        expect(isoInstant(millis)).toBe(new Date(millis).toISOString())
      }),
      { numRuns: 50_000 }
    )
  })

  it("writes the UTC day an instant falls on", () => {
    fc.assert(
      fc.property(anyInstant, (millis) => {
        expect(isoDay(millis)).toBe(new Date(millis).toISOString().slice(0, 10))
      }),
      { numRuns: 20_000 }
    )
  })

  it("writes the edges of a day and of the fast range", () => {
    for (const text of [
      "1970-01-01T00:00:00.000Z",
      "1969-12-31T23:59:59.999Z",
      "2024-02-29T23:59:59.999Z",
      "9999-12-31T23:59:59.999Z",
      "+010000-01-01T00:00:00.000Z",
      "0000-01-01T00:00:00.000Z"
    ]) {
      expect(isoInstant(Date.parse(text))).toBe(text)
    }
  })
})
