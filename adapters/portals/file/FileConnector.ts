/**
 * The `file` connector: receivable reports exported from a debtor portal (CSV or JSON) and
 * dropped in a directory, the way many receivables teams work. The configuration maps the
 * report's columns onto a receivable's fields and says how the portal writes amounts and dates;
 * every other column is kept as metadata, with the file's name as `file_reference`. Files are
 * read in name order and a later file's row replaces an earlier one with the same key (a newer
 * export). A row whose amount or date cannot be read is still reported, and quarantined by the
 * sync with the reason.
 */
import { readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Duration, Effect, Schema, Stream } from "effect"
import type { FetchedDocument } from "../../../core/domain/PairSync.ts"
import { parseAmountCents, parseDate } from "../../../core/domain/PortalValues.ts"
import { makeStatusMapping } from "../../../core/domain/Status.ts"
import { ConnectorFailed, type PairToFetch, type PortalConnector } from "../../../core/ports/PortalConnector.ts"
import { parseCsv } from "./Csv.ts"

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

const decodeConfig = Schema.decodeUnknownExit(FileConfig)

const permanent = (message: string) => new ConnectorFailed({ message, retryable: false })

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

const rowsOf = (config: FileConfig, text: string, file: string) =>
  Effect.try({
    try: (): ReadonlyArray<Record<string, string>> => {
      if (config.format === "csv") return parseCsv(text, config.delimiter ?? ",")
      const parsed: unknown = JSON.parse(text)
      if (!Array.isArray(parsed)) throw new Error("not an array of rows")
      return parsed.map((row) =>
        Object.fromEntries(
          Object.entries(row as Record<string, unknown>).map(([k, v]) => [k, v === null ? "" : String(v)])
        )
      )
    },
    catch: (error) => permanent(`${file} cannot be read as ${config.format}: ${(error as Error).message}`)
  })

const fetchAll = (pair: PairToFetch) =>
  Effect.gen(function* () {
    const decoded = decodeConfig(pair.config)
    if (decoded._tag === "Failure") return yield* permanent(`file configuration: ${String(decoded.cause)}`)
    const config = decoded.value
    const extension = `.${config.format}`
    const files = yield* Effect.tryPromise({
      try: () => readdir(config.directory),
      catch: () => permanent(`the directory ${config.directory} cannot be read`)
    })
    const byKey = new Map<string, FetchedDocument>()
    for (const file of files.filter((name) => name.toLowerCase().endsWith(extension)).sort()) {
      const text = yield* Effect.tryPromise({
        try: () => readFile(join(config.directory, file), "utf8"),
        // A file still being written or moved: the next run may read it.
        catch: () => new ConnectorFailed({ message: `${file} cannot be read`, retryable: true })
      })
      for (const row of yield* rowsOf(config, text, file)) {
        const document = documentOf(config, row, file)
        if (document.documentKey !== "") byKey.set(document.documentKey, document)
      }
    }
    return [...byKey.values()]
  })

export const connector: PortalConnector = {
  kind: "file",
  configSchema: FileConfig,
  statusMapping: makeStatusMapping({}),
  defaultInterval: Duration.minutes(15),
  fetch: (pair) => Stream.unwrap(Effect.map(fetchAll(pair), Stream.fromIterable))
}
