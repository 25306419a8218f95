/**
 * Reading the values portals write: amounts as text (`1,234.56`, `1234.5`, `1.234,56`) into
 * integer cents without ever going through a float, and dates in the portal's order into
 * `YYYY-MM-DD`. Every connector uses these; none of them guesses: the separator and the date
 * order come from the integration's configuration.
 */
import { isCalendarDate } from "../../shared/domain/Values.ts"

export type DecimalSeparator = "." | ","

/**
 * Cents from a written amount, or undefined when the text is not one. Thousands separators (the
 * other of `.`/`,`, spaces, apostrophes) are allowed only in groups of three; at most two
 * decimals; a leading minus or surrounding parentheses make it negative.
 */
export const parseAmountCents = (text: string, decimal: DecimalSeparator): number | undefined => {
  let value = text.trim()
  let negative = false
  if (/^\(.*\)$/.test(value)) {
    negative = true
    value = value.slice(1, -1).trim()
  }
  if (value.startsWith("-")) {
    negative = !negative
    value = value.slice(1).trim()
  }
  const thousands = decimal === "." ? "[,' \u00a0]" : "[.' \u00a0]"
  const pattern = new RegExp(`^(\\d{1,3}(?:${thousands}\\d{3})+|\\d+)(?:\\${decimal}(\\d{1,2}))?$`)
  const match = pattern.exec(value)
  if (match === null) return undefined
  const units = match[1]!.replace(/\D/g, "")
  const cents = (match[2] ?? "").padEnd(2, "0")
  const total = BigInt(units) * 100n + BigInt(cents)
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) return undefined
  const result = Number(total)
  return negative && result !== 0 ? -result : result
}

export type DateOrder = "YMD" | "DMY" | "MDY"

/**
 * `YYYY-MM-DD` from a written date in the given order, with `-`, `/` or `.` between the parts
 * (and an optional time after a `T` or a space, ignored); undefined when it is not an existing
 * calendar date.
 */
export const parseDate = (text: string, order: DateOrder): string | undefined => {
  const datePart = text.trim().split(/[T ]/)[0] ?? ""
  const parts = datePart.split(/[-/.]/)
  if (parts.length !== 3 || !parts.every((part) => /^\d+$/.test(part))) return undefined
  const [a, b, c] = parts as [string, string, string]
  const [year, month, day] = order === "YMD" ? [a, b, c] : order === "DMY" ? [c, b, a] : [c, a, b]
  if (year.length !== 4 || month.length > 2 || day.length > 2) return undefined
  const iso = `${year}-${month.padStart(2, "0")}-${day.padStart(2, "0")}`
  return isCalendarDate(iso) ? iso : undefined
}

/** The calendar date `days` after a `YYYY-MM-DD` date: a due date from an invoice date and its net terms. */
export const addDays = (isoDate: string, days: number): string =>
  new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)
