/**
 * CSV exports of the dashboard's views (RFC 4180: comma-separated, CRLF, fields quoted where they
 * hold a comma, quote or line break), streamed: a page of rows is read and written before the next
 * one is read, so an export never holds the whole log in memory. UTF-8 with a byte-order mark,
 * since spreadsheet programs read a file without one in the system's legacy encoding. A cell that
 * starts with `=`, `+`, `-`, `@` (or a tab or carriage return) is prefixed with `'`, so that no
 * spreadsheet runs it as a formula (OWASP, CSV injection): paths, names and subjects come from
 * clients and portals. A plain number (`-12.50`) is left as it is: it runs nothing, and a finance
 * sheet must read a credit note's amount as a number, not as text.
 */
import { Effect, type Option, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import * as Security from "./Security.ts"

const formulaStart = /^[=+\-@\t\r]/
const plainNumber = /^-?[0-9]+(\.[0-9]+)?$/

/** One cell as the file holds it: guarded against formulas, quoted when it must be. */
export const cell = (value: string | number | null): string => {
  const text = value === null ? "" : String(value)
  const guarded = formulaStart.test(text) && !plainNumber.test(text) ? `'${text}` : text
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded
}

export const line = (cells: ReadonlyArray<string | number | null>) => `${cells.map(cell).join(",")}\r\n`

const utf8 = new TextEncoder()
const byteOrderMark = "\uFEFF"

/**
 * A streamed CSV download: the header line, then each page `next` reads (its rows, and the cursor
 * of the page after it, if any), starting from `first`.
 */
export const download = <C>(
  filename: string,
  header: ReadonlyArray<string>,
  first: C,
  next: (cursor: C) => Effect.Effect<readonly [ReadonlyArray<ReadonlyArray<string | number | null>>, Option.Option<C>]>
) =>
  Security.secured(
    HttpServerResponse.stream(
      Stream.concat(
        Stream.succeed(utf8.encode(byteOrderMark + line(header))),
        Stream.paginate(first, (cursor) =>
          Effect.map(next(cursor), ([rows, after]) => [[utf8.encode(rows.map(line).join(""))], after] as const)
        )
      ),
      {
        contentType: "text/csv; charset=utf-8",
        headers: { "content-disposition": `attachment; filename="${filename}"` }
      }
    )
  )
