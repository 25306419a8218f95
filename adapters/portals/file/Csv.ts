/**
 * A small RFC 4180 CSV reader: quoted fields (with doubled quotes and line breaks inside), a
 * configurable delimiter, CRLF or LF line ends, and a header row naming the columns. It reads
 * text chunk by chunk, so an export of any size is read in bounded memory; a quote or a CR at
 * the end of one chunk is resolved by the next. A record over the size limit is read past, not
 * kept: only its size is reported.
 */

/** The most characters one record (a row, every field and delimiter) may have; a bigger one is read past. */
export const maxRecordCharacters = 1024 * 1024

/** A record read past because it was over the limit: how long it was, in characters. */
export interface OversizeRecord {
  readonly oversize: number
}

export type CsvRecord = ReadonlyArray<string> | OversizeRecord

export const isOversize = (record: CsvRecord): record is OversizeRecord => "oversize" in record

/** A reader fed chunks of text; each call gives the records completed so far. */
export const csvReader = (delimiter: string, maxRecord = maxRecordCharacters) => {
  let row: Array<string> = []
  let field = ""
  let quoted = false
  // A quote inside a quoted field: either the first of a doubled quote or the field's end.
  let quoteInQuoted = false
  // A CR ended the last row; a LF right after it belongs to that line end.
  let afterCr = false
  let fieldStarted = false
  // The characters of the current record so far; past the limit, nothing more of it is kept.
  let size = 0

  const endRow = (rows: Array<CsvRecord>) => {
    if (size > maxRecord) rows.push({ oversize: size })
    else {
      row.push(field)
      if (!(row.length === 1 && row[0] === "")) rows.push(row)
    }
    row = []
    field = ""
    fieldStarted = false
    size = 0
  }

  const add = (text: string) => {
    size += text.length
    if (size <= maxRecord) field += text
    else {
      row = []
      field = ""
    }
  }

  const push = (chunk: string): Array<CsvRecord> => {
    const rows: Array<CsvRecord> = []
    for (const char of chunk) {
      if (afterCr) {
        afterCr = false
        if (char === "\n") continue
      }
      if (quoteInQuoted) {
        quoteInQuoted = false
        if (char === '"') {
          add('"')
          continue
        }
        quoted = false
      }
      if (quoted) {
        if (char === '"') quoteInQuoted = true
        else add(char)
      } else if (char === '"' && !fieldStarted) {
        quoted = true
        fieldStarted = true
      } else if (char === delimiter) {
        size += 1
        if (size <= maxRecord) row.push(field)
        field = ""
        fieldStarted = false
      } else if (char === "\n" || char === "\r") {
        afterCr = char === "\r"
        endRow(rows)
      } else {
        add(char)
        fieldStarted = true
      }
    }
    return rows
  }

  const end = (): Array<CsvRecord> => {
    const rows: Array<CsvRecord> = []
    if (field !== "" || row.length > 0 || quoted || size > 0) endRow(rows)
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

/** The rows of a whole CSV text as records keyed by the header's column names; oversize rows are left out. */
export const parseCsv = (text: string, delimiter: string): ReadonlyArray<Record<string, string>> => {
  const reader = csvReader(delimiter)
  const [header, ...body] = [...reader.push(text), ...reader.end()]
  if (header === undefined || isOversize(header)) return []
  const names = columnNames(header)
  return body.flatMap((cells) => (isOversize(cells) ? [] : [recordOf(names, cells)]))
}
