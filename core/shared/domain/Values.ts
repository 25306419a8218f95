/**
 * Value schemas shared by the resources: timestamps, calendar dates, currency codes, amounts and
 * portal metadata. Encoded forms are the API's: ISO 8601 UTC timestamps with milliseconds and
 * `YYYY-MM-DD` dates.
 */
import { Schema, SchemaTransformation } from "effect"

/**
 * An instant; encodes as `2026-11-21T03:46:13.000Z`. `Schema.DateTimeUtcFromString` with its format
 * and description on the string side, which is what the OpenAPI document shows.
 */
export const Timestamp = Schema.String.annotate({
  expected: "a string that will be decoded as a DateTime.Utc",
  description: "ISO 8601 timestamp (UTC)",
  format: "date-time"
}).pipe(Schema.decodeTo(Schema.DateTimeUtc, SchemaTransformation.dateTimeUtcFromString))
export type Timestamp = typeof Timestamp.Type

const daysInMonth = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

const digitAt = (text: string, index: number): number => {
  const digit = text.charCodeAt(index) - 48
  return digit >= 0 && digit <= 9 ? digit : Number.NaN
}

/**
 * True when the text is `YYYY-MM-DD` naming a day that exists (year 0001 on, as PostgreSQL's
 * dates). A sync checks every date it reads, so this reads the digits in place.
 */
export const isCalendarDate = (text: string): boolean => {
  if (text.length !== 10 || text[4] !== "-" || text[7] !== "-") return false
  const year = digitAt(text, 0) * 1000 + digitAt(text, 1) * 100 + digitAt(text, 2) * 10 + digitAt(text, 3)
  const month = digitAt(text, 5) * 10 + digitAt(text, 6)
  const day = digitAt(text, 8) * 10 + digitAt(text, 9)
  if (!(year >= 1 && month >= 1 && month <= 12 && day >= 1)) return false
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return day <= (month === 2 && leap ? 29 : daysInMonth[month - 1]!)
}

/**
 * A calendar date `YYYY-MM-DD` that exists (no 2026-02-30). Annotated before its checks: an
 * annotation after them would sit on the brand, where JSON Schema does not see it. Patterns here
 * carry the `u` flag so that they reach JSON Schema, whose patterns are Unicode.
 */
export const IsoDate = Schema.String.annotate({ description: "Date, format YYYY-MM-DD", format: "date" })
  .check(
    Schema.isPattern(/^\d{4}-\d{2}-\d{2}$/u, { expected: "a date YYYY-MM-DD" }),
    Schema.makeFilter(isCalendarDate, { expected: "an existing calendar date" })
  )
  .pipe(Schema.brand("IsoDate"))
export type IsoDate = typeof IsoDate.Type

/** Three upper-case letters, the form of ISO 4217 codes. */
export const CurrencyCode = Schema.String.check(
  Schema.isPattern(/^[A-Z]{3}$/u, { expected: "a currency code such as EUR" })
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
