/**
 * A small RFC 4180 CSV reader: quoted fields (with doubled quotes and line breaks inside), a
 * configurable delimiter, CRLF or LF line ends, and a header row naming the columns. It reads
 * text chunk by chunk, so an export of any size is read in bounded memory; a quote or a CR at
 * the end of one chunk is resolved by the next.
 */

/** A reader fed chunks of text; each call gives the rows completed so far. */
export const csvReader = (delimiter: string) => {
  let row: Array<string> = []
  let field = ""
  let quoted = false
  // A quote inside a quoted field: either the first of a doubled quote or the field's end.
  let quoteInQuoted = false
  // A CR ended the last row; a LF right after it belongs to that line end.
  let afterCr = false
  let fieldStarted = false

  const endRow = (rows: Array<Array<string>>) => {
    row.push(field)
    if (!(row.length === 1 && row[0] === "")) rows.push(row)
    row = []
    field = ""
    fieldStarted = false
  }

  const push = (chunk: string): Array<Array<string>> => {
    const rows: Array<Array<string>> = []
    for (const char of chunk) {
      if (afterCr) {
        afterCr = false
        if (char === "\n") continue
      }
      if (quoteInQuoted) {
        quoteInQuoted = false
        if (char === '"') {
          field += '"'
          continue
        }
        quoted = false
      }
      if (quoted) {
        if (char === '"') quoteInQuoted = true
        else field += char
      } else if (char === '"' && !fieldStarted) {
        quoted = true
        fieldStarted = true
      } else if (char === delimiter) {
        row.push(field)
        field = ""
        fieldStarted = false
      } else if (char === "\n" || char === "\r") {
        afterCr = char === "\r"
        endRow(rows)
      } else {
        field += char
        fieldStarted = true
      }
    }
    return rows
  }

  const end = (): Array<Array<string>> => {
    const rows: Array<Array<string>> = []
    if (field !== "" || row.length > 0 || quoted) endRow(rows)
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

/** The rows of a whole CSV text as records keyed by the header's column names. */
export const parseCsv = (text: string, delimiter: string): ReadonlyArray<Record<string, string>> => {
  const reader = csvReader(delimiter)
  const [header, ...body] = [...reader.push(text), ...reader.end()]
  if (header === undefined) return []
  const names = columnNames(header)
  return body.map((cells) => recordOf(names, cells))
}
