/**
 * `verified_since`: the literal `all`, a date-time with `Z` or an offset, or a plain date read as
 * midnight UTC; by default 24 hours before the request. The list keeps receivables whose
 * `updated_at` is at or after it. Also the rule of `next_verified_since`, the instant a client
 * passes back as `verified_since` on its next poll.
 */
import { DateTime, Duration, Option } from "effect"
import { isCalendarDate } from "./Values.ts"

export type VerifiedSince = { readonly _tag: "All" } | { readonly _tag: "Since"; readonly at: DateTime.Utc }

export const verifiedSinceAll: VerifiedSince = { _tag: "All" }

export const verifiedSinceWindow = Duration.hours(24)

const dateTimePattern =
  /^(\d{4}-\d{2}-\d{2})(?:T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?$/

/** Reads a `verified_since` value; none when it is neither `all`, a date-time nor a date. */
export const parseVerifiedSince = (text: string): Option.Option<VerifiedSince> => {
  if (text === "all") return Option.some(verifiedSinceAll)
  const match = dateTimePattern.exec(text)
  if (match === null || !isCalendarDate(match[1]!)) return Option.none()
  // JavaScript reads a bare date as UTC midnight, and at most milliseconds of a fraction.
  return Option.map(DateTime.make(text.replace(/(\.\d{3})\d+/, "$1")), (at) => ({ _tag: "Since", at }))
}

/** The default window: everything updated in the 24 hours before `now`. */
export const defaultVerifiedSince = (now: DateTime.Utc): VerifiedSince => ({
  _tag: "Since",
  at: DateTime.subtractDuration(now, verifiedSinceWindow)
})

/**
 * How old a pair's in-flight mark (`sync_started_at`) may be and still be a sync that runs: the
 * longest sync deadline is 9 minutes, so an older mark is a crashed worker's, and honouring it
 * would hold every later watermark back.
 */
export const syncMarkStaleAfter = Duration.minutes(10)

/**
 * `next_verified_since` as of `now` (the read's time, on the clock the syncs' marks and
 * `updated_at` come from): the earliest of `now` and the fresh in-flight marks of the
 * organization's pairs. A sync writes every row with one time at or after its pair's mark (set
 * and committed before its transaction begins), so a change committed after the read carries an
 * `updated_at` at or after this instant; stale marks are ignored.
 */
export const nextVerifiedSince = (now: DateTime.Utc, marks: Iterable<DateTime.Utc>): DateTime.Utc => {
  const freshFrom = DateTime.subtractDuration(now, syncMarkStaleAfter)
  let earliest = now
  for (const mark of marks) {
    if (DateTime.isGreaterThanOrEqualTo(mark, freshFrom)) earliest = DateTime.min(earliest, mark)
  }
  return earliest
}
