/**
 * The `file` connector: receivable reports exported from a debtor portal (CSV or JSON) and
 * dropped in a directory, the way many receivables teams work. The configuration maps the
 * report's columns onto a receivable's fields and says how the portal writes amounts and dates;
 * every other column is kept as metadata, with the file's name as `file_reference`. A row in a
 * later-named file replaces one with the same key in an earlier file (a newer export). CSV is
 * streamed, so a report of any size is read in bounded memory. A row whose amount or date cannot
 * be read is still reported, and quarantined by the sync with the reason.
 */
import { createReadStream } from "node:fs"
import { readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Duration, Effect, Schema, Stream } from "effect"
import type { FetchedDocument } from "../../../core/domain/PairSync.ts"
import { parseAmountCents, parseDate } from "../../../core/domain/PortalValues.ts"
import { makeStatusMapping } from "../../../core/domain/Status.ts"
import {
  type ConnectorFailed,
  configOf,
  type PairToFetch,
  type PortalConnector,
  permanentFailure,
  retryableFailure
} from "../../../core/ports/PortalConnector.ts"
import { columnNames, csvReader, recordOf } from "./Csv.ts"

const Column = Schema.String.check(Schema.isNonEmpty())

export const FileConfig = Schema.Struct({
  directory: Column,
  format: Schema.Literals(["csv", "json"]),
  /** CSV only: `,` (default), `;` or a tab. */
  delimiter: Schema.optionalKey(Schema.Literals([",", ";", "\t"])),
  decimalSeparator: Schema.Literals([".", ","]),
  dateOrder: Schema.Literals(["YMD", "DMY", "MDY"]),
  /** The currency of every row, when the report has no currency column. */
  currency: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[A-Z]{3}$/))),
  columns: Schema.Struct({
    documentKey: Column,
    amount: Column,
    receivableDate: Column,
    status: Column,
    currency: Schema.optionalKey(Column),
    dueDate: Schema.optionalKey(Column),
    vendorReceivableId: Schema.optionalKey(Column),
    poNumber: Schema.optionalKey(Column)
  })
})
export type FileConfig = typeof FileConfig.Type

const optionalText = (value: string | undefined) => (value === undefined || value.trim() === "" ? null : value.trim())

/** One report row as a document; unreadable values are passed on as they are, to be quarantined. */
export const documentOf = (config: FileConfig, row: Record<string, string>, file: string): FetchedDocument => {
  const columns = config.columns
  const mapped = new Set(Object.values(columns))
  const amount = row[columns.amount] ?? ""
  const receivableDate = row[columns.receivableDate] ?? ""
  const dueDate = columns.dueDate === undefined ? null : optionalText(row[columns.dueDate])
  return {
    documentKey: (row[columns.documentKey] ?? "").trim(),
    vendorReceivableId: columns.vendorReceivableId === undefined ? null : optionalText(row[columns.vendorReceivableId]),
    amountCents: parseAmountCents(amount, config.decimalSeparator) ?? Number.NaN,
    currency: (columns.currency === undefined ? config.currency : row[columns.currency]?.trim()) ?? "",
    receivableDate: parseDate(receivableDate, config.dateOrder) ?? receivableDate,
    dueDate: dueDate === null ? null : (parseDate(dueDate, config.dateOrder) ?? dueDate),
    portalStatus: row[columns.status] ?? "",
    poNumber: columns.poNumber === undefined ? null : optionalText(row[columns.poNumber]),
    metadata: {
      ...Object.fromEntries(
        Object.entries(row)
          .filter(([name, value]) => !mapped.has(name) && value.trim() !== "")
          .map(([n, v]) => [n, v])
      ),
      file_reference: file
    }
  }
}

const unreadable = (config: FileConfig, file: string, error: unknown) =>
  permanentFailure(
    `${file} cannot be read as ${config.format}: ${error instanceof Error ? error.message : String(error)}`
  )

// A file that cannot be opened may still be being written or moved: the next run may read it.
const cannotOpen = (file: string) => retryableFailure(`${file} cannot be read`)

/** A CSV export's rows, read chunk by chunk. */
const csvRows = (
  config: FileConfig,
  path: string,
  file: string
): Stream.Stream<Record<string, string>, ConnectorFailed> =>
  Stream.suspend(() => {
    const reader = csvReader(config.delimiter ?? ",")
    let names: ReadonlyArray<string> | undefined
    const records = (rows: ReadonlyArray<ReadonlyArray<string>>) => {
      const out: Array<Record<string, string>> = []
      for (const cells of rows) {
        if (names === undefined) names = columnNames(cells)
        else out.push(recordOf(names, cells))
      }
      return out
    }
    return Stream.fromAsyncIterable(createReadStream(path, { encoding: "utf8" }), () => cannotOpen(file)).pipe(
      Stream.map((chunk: string) => records(reader.push(chunk))),
      Stream.concat(Stream.sync(() => records(reader.end()))),
      Stream.flattenIterable
    )
  })

/** A JSON export (an array of row objects), read whole: for very large reports prefer CSV. */
const jsonRows = (config: FileConfig, path: string, file: string) =>
  Effect.tryPromise({ try: () => readFile(path, "utf8"), catch: () => cannotOpen(file) }).pipe(
    Effect.flatMap((text) =>
      Effect.try({
        try: (): ReadonlyArray<Record<string, string>> => {
          const parsed: unknown = JSON.parse(text)
          if (!Array.isArray(parsed)) throw new Error("not an array of rows")
          return parsed.map((row) =>
            Object.fromEntries(
              Object.entries(row as Record<string, unknown>).map(([k, v]) => [k, v === null ? "" : String(v)])
            )
          )
        },
        catch: (error) => unreadable(config, file, error)
      })
    ),
    Stream.fromIterableEffect
  )

/**
 * Every export's documents, newest name first, each key once: a key's row in a later export
 * replaces its row in an earlier one, and only the keys already given are remembered.
 */
const fetchDocuments = (pair: PairToFetch) =>
  Effect.gen(function* () {
    const config = yield* configOf({ kind: "file", configSchema: FileConfig }, pair.config)
    const extension = `.${config.format}`
    const files = yield* Effect.tryPromise({
      try: () => readdir(config.directory),
      catch: () => permanentFailure(`the directory ${config.directory} cannot be read`)
    })
    const newestFirst = files
      .filter((name) => name.toLowerCase().endsWith(extension))
      .sort()
      .reverse()
    const given = new Set<string>()
    return Stream.fromIterable(newestFirst).pipe(
      Stream.flatMap((file) => {
        const path = join(config.directory, file)
        const rows = config.format === "csv" ? csvRows(config, path, file) : jsonRows(config, path, file)
        return Stream.map(rows, (row) => documentOf(config, row, file))
      }),
      Stream.filter((document) => {
        if (document.documentKey === "" || given.has(document.documentKey)) return false
        given.add(document.documentKey)
        return true
      })
    )
  })

export const connector = {
  kind: "file",
  configSchema: FileConfig,
  statusMapping: makeStatusMapping({}),
  defaultInterval: Duration.minutes(15),
  fetch: (pair) => Stream.unwrap(fetchDocuments(pair))
} satisfies PortalConnector
