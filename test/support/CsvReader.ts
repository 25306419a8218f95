/**
 * An RFC 4180 reader, as a spreadsheet reads the dashboard's CSV downloads: quoted cells may hold
 * commas, doubled quotes and line breaks; every record ends with CRLF.
 */

/** One record from `start` (its CRLF included): its cells, and where the next record starts. */
export const readRecord = (text: string, start = 0): { readonly cells: Array<string>; readonly end: number } => {
  const cells: Array<string> = []
  let i = start
  for (;;) {
    let value = ""
    if (text[i] === '"') {
      i++
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') {
          value += '"'
          i += 2
        } else if (text[i] === '"') {
          i++
          break
        } else value += text[i++]
      }
    } else {
      while (i < text.length && text[i] !== "," && !(text[i] === "\r" && text[i + 1] === "\n")) value += text[i++]
    }
    cells.push(value)
    if (text[i] === ",") i++
    else return { cells, end: i + 2 }
  }
}

/** A whole download (byte-order mark first) as its header's names to each row's cells. */
export const readCsv = (text: string): Array<Record<string, string>> => {
  const body = text.replace(/^\uFEFF/, "")
  const { cells: header, end } = readRecord(body)
  const rows: Array<Record<string, string>> = []
  for (let at = end; at < body.length; ) {
    const { cells, end: next } = readRecord(body, at)
    rows.push(Object.fromEntries(header.map((name, i) => [name, cells[i] ?? ""])))
    at = next
  }
  return rows
}
