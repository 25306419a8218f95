/**
 * ISO 8601 text of days and instants, exactly as `Date.prototype.toISOString` writes them, without
 * a `Date` per call: a list page writes three hundred timestamps and a sync thousands of dates,
 * and most of them fall on a few days, whose text is kept.
 */

const dayMillis = 86_400_000
const daysKept = 100_000
const days = new Map<number, string>()

/** `YYYY-MM-DD` of the UTC day the instant falls on. */
export const isoDay = (epochMillis: number): string => {
  const day = Math.floor(epochMillis / dayMillis)
  let text = days.get(day)
  if (text === undefined) {
    text = new Date(day * dayMillis).toISOString().slice(0, 10)
    if (days.size >= daysKept) days.clear()
    days.set(day, text)
  }
  return text
}

const twoDigits = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, "0"))
const threeDigits = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"))
// Beyond these, `toISOString` writes six-digit signed years; those are left to it.
const firstFast = 0
const lastFast = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/** `YYYY-MM-DDTHH:MM:SS.mmmZ`. */
export const isoInstant = (epochMillis: number): string => {
  if (!(epochMillis >= firstFast && epochMillis <= lastFast && Number.isInteger(epochMillis))) {
    return new Date(epochMillis).toISOString()
  }
  const ofDay = epochMillis % dayMillis
  const hours = Math.floor(ofDay / 3_600_000)
  const minutes = Math.floor(ofDay / 60_000) % 60
  const seconds = Math.floor(ofDay / 1000) % 60
  return `${isoDay(epochMillis)}T${twoDigits[hours]}:${twoDigits[minutes]}:${twoDigits[seconds]}.${threeDigits[ofDay % 1000]}Z`
}
