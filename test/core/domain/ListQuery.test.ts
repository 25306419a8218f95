import { assert, describe, it } from "@effect/vitest"
import { DateTime, Option } from "effect"
import fc from "fast-check"
import { defaultVerifiedSince, parseVerifiedSince } from "../../../core/shared/domain/ListQuery.ts"

const sinceOf = (text: string) =>
  Option.map(parseVerifiedSince(text), (value) => (value._tag === "All" ? "all" : DateTime.formatIso(value.at)))

describe("verified_since", () => {
  it("accepts all, date-times with Z or an offset, and plain dates as midnight UTC", () => {
    assert.deepStrictEqual(sinceOf("all"), Option.some("all"))
    assert.deepStrictEqual(sinceOf("2026-11-21T03:46:13Z"), Option.some("2026-11-21T03:46:13.000Z"))
    assert.deepStrictEqual(sinceOf("2026-11-21T03:46:13.5+02:00"), Option.some("2026-11-21T01:46:13.500Z"))
    assert.deepStrictEqual(sinceOf("2026-11-21T03:46:13.123456Z"), Option.some("2026-11-21T03:46:13.123Z"))
    assert.deepStrictEqual(sinceOf("2026-11-21T03:46-05:30"), Option.some("2026-11-21T09:16:00.000Z"))
    assert.deepStrictEqual(sinceOf("2026-11-21"), Option.some("2026-11-21T00:00:00.000Z"))
  })

  it("refuses anything else", () => {
    for (const text of [
      "",
      "ALL",
      "All",
      "yesterday",
      "2026-11-21T03:46:13",
      "2026-02-30",
      "2026-11-21T24:00:00Z",
      "2026-11-21T03:60:00Z",
      "2026-11-21T03:46:13+25:00",
      "2026-11-21 03:46:13Z",
      "1732160773",
      "2026-11-21T03:46:13z"
    ]) {
      assert.isTrue(Option.isNone(parseVerifiedSince(text)), text)
    }
  })

  it("reads every instant back from its ISO form", () =>
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true }),
        (date) => {
          assert.deepStrictEqual(sinceOf(date.toISOString()), Option.some(date.toISOString()))
        }
      )
    ))

  it("defaults to 24 hours before now", () => {
    const now = DateTime.makeUnsafe("2026-11-21T03:46:13.000Z")
    const since = defaultVerifiedSince(now)
    assert.strictEqual(since._tag === "Since" && DateTime.formatIso(since.at), "2026-11-20T03:46:13.000Z")
  })
})
