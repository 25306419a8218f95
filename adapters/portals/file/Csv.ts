/**
 * Reading CSV exports chunk by chunk, in bounded memory, with `csv-parse` reading the fields.
 *
 * `csv-parse` cannot read past a record over its size limit: with `skip_records_with_error` it
 * keeps growing the record's buffer to its full size and drops the record after it, and without
 * it the parse stops at the first such record. So a thin scanner finds where records end (the
 * only characters it looks at are quotes and line ends) and keeps at most one record of text; the
 * records within the limit go to `csv-parse` in one call per chunk, and a record over it is read
 * past, only its size reported. A record `csv-parse` refuses (text after a closing quote, a quote
 * never closed) is reported with its reason, and the records around it are still read.
 */
import { CsvError, parse } from "csv-parse/sync"

/** The most characters one record (a row as written: fields, quotes, delimiters) may have; a bigger one is read past. */
export const maxRecordCharacters = 1024 * 1024

/** A record read past because it was over the limit: how long it was, in characters. */
export interface OversizeRecord {
  readonly oversize: number
}

/** A record that is not valid CSV, with why. */
export interface MalformedRecord {
  readonly malformed: string
}

export type CsvRecord = ReadonlyArray<string> | OversizeRecord | MalformedRecord

export const isOversize = (record: CsvRecord): record is OversizeRecord => "oversize" in record

export const isMalformed = (record: CsvRecord): record is MalformedRecord => "malformed" in record

const lineEndsOrQuotes = /["\r\n]/g

/** A line holding nothing, or one empty quoted field, is no row. */
const isBlank = (cells: ReadonlyArray<string>) => cells.length === 1 && cells[0] === ""

/** A reader fed chunks of text; each call gives the records completed so far. */
export const csvReader = (delimiter: string, maxRecord = maxRecordCharacters) => {
  const options = {
    delimiter,
    record_delimiter: ["\r\n", "\n", "\r"],
    // A quote inside an unquoted field is a character of it, as exporters mean it.
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true
  }
  // The current record's text from earlier chunks, while it is within the limit.
  let carry = ""
  // The current record's length so far, in characters, kept or not.
  let size = 0
  let quoted = false
  // Inside quotes, a chunk ended with a quote: the next chunk's first character says whether it was doubled.
  let quoteAtEnd = false
  // The character before the chunk: a quote opens a quoted field only at a field's start.
  let previous: string | undefined

  const reasonOf = (error: unknown) =>
    error instanceof CsvError
      ? `the row is not valid CSV: ${error.message.replace(/ at line \d+$/, "")}`
      : "the row is not valid CSV"

  const parsed = (text: string): ReadonlyArray<CsvRecord> => {
    try {
      return parse(text, options)
    } catch (error) {
      return [{ malformed: reasonOf(error) }]
    }
  }

  /** The records of `text` (complete records, `bounds` their ends): in one call, or record by record if one is refused. */
  const readRecords = (text: string, bounds: ReadonlyArray<number>, rows: Array<CsvRecord>) => {
    if (bounds.length === 0) return
    const whole = parsed(text)
    if (whole.length === bounds.length && !whole.some(isMalformed)) {
      for (const row of whole as ReadonlyArray<ReadonlyArray<string>>) if (!isBlank(row)) rows.push(row)
      return
    }
    let from = 0
    for (const end of bounds) {
      const one = parsed(text.slice(from, end))
      const [row] = one
      if (row !== undefined && (isMalformed(row) || !isBlank(row as ReadonlyArray<string>))) {
        rows.push(one.length === 1 ? row : { malformed: "the row is not valid CSV: it reads as several records" })
      }
      from = end
    }
  }

  const push = (chunk: string): Array<CsvRecord> => {
    const rows: Array<CsvRecord> = []
    if (chunk === "") return rows
    // Complete records within the limit not yet read: `carry` + chunk[segmentStart, recordStart), ending at `bounds`.
    let segmentStart = 0
    let recordStart = 0
    let bounds: Array<number> = []
    const flush = () => {
      if (bounds.length === 0) return
      readRecords(carry + chunk.slice(segmentStart, recordStart), bounds, rows)
      carry = ""
      bounds = []
    }
    lineEndsOrQuotes.lastIndex = 0
    if (quoteAtEnd) {
      quoteAtEnd = false
      if (chunk.startsWith('"')) lineEndsOrQuotes.lastIndex = 1
      else quoted = false
    }
    for (let match = lineEndsOrQuotes.exec(chunk); match !== null; match = lineEndsOrQuotes.exec(chunk)) {
      const at = match.index
      if (chunk[at] === '"') {
        if (quoted) {
          if (at + 1 === chunk.length) quoteAtEnd = true
          else if (chunk[at + 1] === '"') lineEndsOrQuotes.lastIndex = at + 2
          else quoted = false
        } else {
          const before = at === 0 ? previous : chunk[at - 1]
          quoted = before === undefined || before === delimiter || before === "\n" || before === "\r"
        }
        continue
      }
      if (quoted) continue
      const length = size + (at - recordStart)
      if (length > maxRecord) {
        flush()
        // What was kept of it from earlier chunks is dropped with it.
        carry = ""
        rows.push({ oversize: length })
        segmentStart = at + 1
      } else if (length > 0) {
        // The record's end, after its line end, relative to the segment's text.
        bounds.push(carry.length + at + 1 - segmentStart)
      } else if (bounds.length === 0 && carry === "") {
        // A blank line (or the LF of a CRLF) before any record of the segment: left out of it.
        segmentStart = at + 1
      }
      recordStart = at + 1
      size = 0
    }
    flush()
    const rest = chunk.length - recordStart
    if (size + rest <= maxRecord) carry += chunk.slice(recordStart)
    else carry = ""
    size += rest
    if (chunk.length > 0) previous = chunk[chunk.length - 1]
    return rows
  }

  const end = (): Array<CsvRecord> => {
    const rows: Array<CsvRecord> = []
    if (size > maxRecord) rows.push({ oversize: size })
    else if (size > 0) readRecords(carry, [carry.length], rows)
    carry = ""
    size = 0
    quoted = false
    quoteAtEnd = false
    return rows
  }

  return { push, end }
}

/** Column names from a header row: trimmed, without the byte-order mark some exporters write. */
export const columnNames = (header: ReadonlyArray<string>): ReadonlyArray<string> =>
  header.map((name) => name.trim().replace(/^\uFEFF/, ""))

/** A body row as a record keyed by the header's column names. */
export const recordOf = (names: ReadonlyArray<string>, cells: ReadonlyArray<string>): Record<string, string> =>
  Object.fromEntries(names.map((name, i) => [name, cells[i] ?? ""]))

/** The rows of a whole CSV text as records keyed by the header's column names; unreadable rows are left out. */
export const parseCsv = (text: string, delimiter: string): ReadonlyArray<Record<string, string>> => {
  const reader = csvReader(delimiter)
  const [header, ...body] = [...reader.push(text), ...reader.end()]
  if (header === undefined || isOversize(header) || isMalformed(header)) return []
  const names = columnNames(header)
  return body.flatMap((cells) => (isOversize(cells) || isMalformed(cells) ? [] : [recordOf(names, cells)]))
}
