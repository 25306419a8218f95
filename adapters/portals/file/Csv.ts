/**
 * A small RFC 4180 CSV reader: quoted fields (with doubled quotes and line breaks inside),
 * a configurable delimiter, CRLF or LF line ends, and a header row naming the columns.
 */

/** The rows of a CSV text as records keyed by the header's column names. */
export const parseCsv = (text: string, delimiter: string): ReadonlyArray<Record<string, string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let field = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (char === '"') {
        quoted = false
      } else {
        field += char
      }
    } else if (char === '"' && field === "") {
      quoted = true
    } else if (char === delimiter) {
      row.push(field)
      field = ""
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[i + 1] === "\n") i++
      row.push(field)
      rows.push(row)
      row = []
      field = ""
    } else {
      field += char
    }
  }
  if (field !== "" || row.length > 0) {
    row.push(field)
    rows.push(row)
  }
  const [header, ...body] = rows.filter((r) => !(r.length === 1 && r[0] === ""))
  if (header === undefined) return []
  const names = header.map((name) => name.trim().replace(/^\uFEFF/, ""))
  return body.map((cells) => Object.fromEntries(names.map((name, i) => [name, cells[i] ?? ""])))
}
