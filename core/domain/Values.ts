/**
 * Value schemas shared by the resources: timestamps, calendar dates, currency codes, amounts and
 * portal metadata. Encoded forms are the API's: ISO 8601 UTC timestamps with milliseconds and
 * `YYYY-MM-DD` dates.
 */
import { Schema } from "effect"

/** An instant; encodes as `2026-11-21T03:46:13.000Z`. */
export const Timestamp = Schema.DateTimeUtcFromString.annotate({ description: "ISO 8601 timestamp (UTC)" })
export type Timestamp = typeof Timestamp.Type

/** True when `YYYY-MM-DD` names a day that exists. */
export const isCalendarDate = (text: string): boolean => {
  const [year, month, day] = text.split("-").map(Number)
  const date = new Date(Date.UTC(year!, month! - 1, day!))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month! - 1 && date.getUTCDate() === day
}

/** A calendar date `YYYY-MM-DD` that exists (no 2026-02-30). */
export const IsoDate = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2}$/, { expected: "a date YYYY-MM-DD" }),
  Schema.makeFilter(isCalendarDate, { expected: "an existing calendar date" })
)
  .pipe(Schema.brand("IsoDate"))
  .annotate({ description: "Date, format YYYY-MM-DD" })
export type IsoDate = typeof IsoDate.Type

/** Three upper-case letters, the form of ISO 4217 codes. */
export const CurrencyCode = Schema.String.check(
  Schema.isPattern(/^[A-Z]{3}$/, { expected: "a currency code such as EUR" })
)
  .pipe(Schema.brand("CurrencyCode"))
  .annotate({ description: "Currency code (ISO 4217 form, e.g. EUR)" })
export type CurrencyCode = typeof CurrencyCode.Type

/** An amount in minor units; a safe integer so that it survives JSON and arithmetic exactly. */
export const AmountCents = Schema.Int.annotate({ description: "Amount in cents (minor units)" })

/** Raw portal data that is not normalized into standard fields: string keys, string values. */
export const Metadata = Schema.Record(Schema.String, Schema.String).annotate({
  identifier: "Metadata",
  description: "Raw portal data not normalized into standard fields"
})
export type Metadata = typeof Metadata.Type
