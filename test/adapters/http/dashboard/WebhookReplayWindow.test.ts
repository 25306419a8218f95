/**
 * The replay form's times, as laws: what a `datetime-local` field sends is read as that minute in
 * UTC, a full ISO 8601 instant (with `Z` or an offset) as itself, and an empty field as no time.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import { instantOf } from "../../../../adapters/http/dashboard/webhooks/WebhookDeliveryRoutes.ts"

const instants = fc
  .date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })
  .map((date) => DateTime.fromDateUnsafe(date))

const millis = (instant: DateTime.Utc | undefined) =>
  instant === undefined ? undefined : DateTime.toEpochMillis(instant)

describe("the replay form's times", () => {
  it("a datetime-local value is that minute in UTC", () =>
    fc.assert(
      fc.property(instants, (instant) => {
        const minute = DateTime.formatIso(instant).slice(0, 16)
        assert.strictEqual(millis(instantOf(minute)), Date.parse(`${minute}:00Z`))
      })
    ))

  it("an ISO 8601 instant, in UTC or at an offset, is itself", () =>
    fc.assert(
      fc.property(instants, fc.integer({ min: -12, max: 14 }), (instant, hours) => {
        assert.strictEqual(millis(instantOf(DateTime.formatIso(instant))), DateTime.toEpochMillis(instant))
        const zoned = DateTime.makeZonedUnsafe(instant, { timeZone: DateTime.zoneMakeOffset(hours * 3_600_000) })
        assert.strictEqual(millis(instantOf(DateTime.formatIsoOffset(zoned))), DateTime.toEpochMillis(instant))
      })
    ))

  it("an empty field, or one of spaces, is no time; words are no time", () => {
    for (const text of ["", "   ", "yesterday", "2026-13-01T00:00", "zz"])
      assert.strictEqual(instantOf(text), undefined)
  })
})
