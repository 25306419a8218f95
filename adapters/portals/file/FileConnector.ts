/**
 * The `file` connector: receivable reports exported from a debtor portal (CSV or JSON) and
 * dropped in a directory, the way many receivables teams work. The configuration maps the
 * report's columns onto a receivable's fields and says how the portal writes amounts and dates;
 * every other column is kept as metadata, with the file's name as `file_reference`. A row in a
 * later-named file replaces one with the same key in an earlier file (a newer export). CSV is
 * streamed, a record at most 1 MiB, so a report of any size is read in bounded memory; JSON is
 * parsed whole, up to 32 MiB. Every row is read or reported: one without a key, over the limit,
 * not valid CSV, or in a file that is not a regular file reaches the sync as a quarantined
 * document.
 */
import { Duration, Effect, Schema, Stream } from "effect"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import { parseAmountCents, parseDate } from "../../../core/receivables/domain/PortalValues.ts"
import { makeStatusMapping, StatusWording } from "../../../core/receivables/domain/Status.ts"
import {
  type ConnectorFailed,
  configOf,
  configuredStatusMapping,
  type PairToFetch,
  type PortalConnector,
  permanentFailure,
  whenApplied
} from "../../../core/receivables/ports/PortalConnector.ts"
import { type Inbox, planInNameOrder } from "../inbox/Inbox.ts"
import { SftpSettings } from "../inbox/SftpInbox.ts"
import { oneInbox, openInbox } from "../inbox/Source.ts"
import { Encoding } from "../text/Decoding.ts"
import { notDecodableMessage, openPortalFile, type PortalFile } from "../text/TextFile.ts"
import { unreadableDocument } from "../Unreadable.ts"
import { columnNames, csvReader, isMalformed, isOversize, maxRecordCharacters, recordOf } from "./Csv.ts"

const Column = Schema.String.check(Schema.isNonEmpty())

export const FileConfig = Schema.Struct({
  /** The local directory the exports are dropped in; or `sftp`. */
  directory: Schema.optionalKey(Column),
  /** The exports' directory on an SFTP server, in place of `directory`. */
  sftp: Schema.optionalKey(SftpSettings),
  format: Schema.Literals(["csv", "json"]),
  /** CSV only: `,` (default), `;` or a tab. */
  delimiter: Schema.optionalKey(Schema.Literals([",", ";", "\t"])),
  /** How amounts are written: `.` (default, `1,234.56`) or `,` (`1.234,56`). */
  decimalSeparator: Schema.optionalKey(Schema.Literals([".", ","])),
  dateOrder: Schema.Literals(["YMD", "DMY", "MDY"]),
  /** The exports' encoding when they carry no byte-order mark: `utf-8` (default), `utf-16le`, `utf-16be`, `latin1`, `windows-1252`. */
  encoding: Schema.optionalKey(Encoding),
  /** The currency of every row, when the report has no currency column. */
  currency: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[A-Z]{3}$/))),
  /** This debtor's own status wording, applied before the default table: `{"Booked": "APPROVED"}`. */
  statuses: Schema.optionalKey(StatusWording),
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
}).check(oneInbox("directory"))
export type FileConfig = typeof FileConfig.Type

/** The largest JSON export read (JSON is parsed whole; CSV, streamed, has no such limit). */
export const maxJsonBytes = 32 * 1024 * 1024

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
    amountCents: parseAmountCents(amount, config.decimalSeparator ?? ".") ?? Number.NaN,
    currency: (columns.currency === undefined ? config.currency : row[columns.currency]?.trim()) ?? "",
    receivableDate: parseDate(receivableDate, config.dateOrder) ?? receivableDate,
    dueDate: dueDate === null ? null : (parseDate(dueDate, config.dateOrder) ?? dueDate),
    portalStatus: row[columns.status] ?? "",
    poNumber: columns.poNumber === undefined ? null : optionalText(row[columns.poNumber]),
    metadata: {
      ...Object.fromEntries(Object.entries(row).filter(([name, value]) => !mapped.has(name) && value.trim() !== "")),
      file_reference: file
    }
  }
}

/** One row of an export: read, or why not, with where it is (`orders.csv row 7`). */
type Row =
  | { readonly _tag: "Record"; readonly locator: string; readonly record: Record<string, string> }
  | { readonly _tag: "Unreadable"; readonly locator: string; readonly reason: string }

/** A JSON value as the text a report cell means: numbers and booleans, objects and arrays as their JSON text. */
export const cellText = (value: unknown): string =>
  typeof value === "string"
    ? value
    : value === null || value === undefined
      ? ""
      : typeof value === "object"
        ? JSON.stringify(value)
        : String(value)

const kindOfValue = (value: unknown) =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "an array"
      : typeof value === "object"
        ? "an object"
        : `a ${typeof value}`

const encodingHint = (config: FileConfig) =>
  `the "encoding" setting says ${config.encoding ?? "utf-8"}; set it to the export's encoding (utf-8, utf-16le, utf-16be, latin1 or windows-1252)`

/** A CSV export's rows, read chunk by chunk; the header is row 1. */
const csvRows = (config: FileConfig, file: string, text: Stream.Stream<string, ConnectorFailed>) =>
  Stream.suspend(() => {
    const reader = csvReader(config.delimiter ?? ",")
    let names: ReadonlyArray<string> | undefined
    let number = 0
    const rows = (records: ReturnType<typeof reader.push>) =>
      Effect.forEach(records, (cells): Effect.Effect<ReadonlyArray<Row>, ConnectorFailed> => {
        number++
        const locator = `${file} row ${number}`
        if (names === undefined) {
          if (isOversize(cells)) {
            return Effect.fail(
              permanentFailure(
                `${file}: its header row is over the limit of ${maxRecordCharacters.toLocaleString("en")} characters`
              )
            )
          }
          if (isMalformed(cells)) return Effect.fail(permanentFailure(`${file}: its header row: ${cells.malformed}`))
          names = columnNames(cells)
          return Effect.succeed([])
        }
        return Effect.succeed([
          isOversize(cells)
            ? {
                _tag: "Unreadable",
                locator,
                reason: `the row is ${cells.oversize.toLocaleString("en")} characters long, over the limit of ${maxRecordCharacters.toLocaleString("en")}`
              }
            : isMalformed(cells)
              ? { _tag: "Unreadable", locator, reason: cells.malformed }
              : { _tag: "Record", locator, record: recordOf(names, cells) }
        ])
      })
    return text.pipe(
      Stream.mapEffect((chunk) => rows(reader.push(chunk))),
      Stream.concat(Stream.fromEffect(Effect.suspend(() => rows(reader.end())))),
      Stream.flattenIterable,
      Stream.flattenIterable
    )
  })

/** A JSON export (an array of row objects), parsed whole, up to `maxJsonBytes`: for larger reports, CSV. */
const jsonRows = Effect.fnUntraced(function* (
  config: FileConfig,
  file: string,
  opened: Extract<PortalFile, { _tag: "Text" }>
) {
  const tooLarge = permanentFailure(
    `${file} is over the ${maxJsonBytes / 2 ** 20} MiB a JSON export may have: export CSV, which is streamed, or split it`
  )
  if (opened.size > maxJsonBytes) return yield* tooLarge
  const parts: Array<string> = []
  let length = 0
  // The file may grow while it is read: the limit holds for what is read, not what was listed.
  yield* Stream.runForEach(opened.chunks, (chunk) => {
    length += chunk.length
    parts.push(chunk)
    return length > maxJsonBytes ? Effect.fail(tooLarge) : Effect.void
  })
  const parsed = yield* Effect.try({
    try: (): unknown => JSON.parse(parts.join("")),
    catch: (error) => permanentFailure(`${file} cannot be read as json: ${(error as Error).message}`)
  })
  if (!Array.isArray(parsed)) return yield* permanentFailure(`${file} cannot be read as json: not an array of rows`)
  const items: ReadonlyArray<unknown> = parsed
  return items.map((item, i): Row => {
    const locator = `${file} item ${i + 1}`
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      return { _tag: "Unreadable", locator, reason: `the item is ${kindOfValue(item)}, not an object` }
    }
    const fields = item as Readonly<Record<string, unknown>>
    const key = fields[config.columns.documentKey]
    if (key !== null && typeof key === "object") {
      return {
        _tag: "Unreadable",
        locator,
        reason: `the "${config.columns.documentKey}" field holds ${kindOfValue(key)}, not a document key`
      }
    }
    return {
      _tag: "Record",
      locator,
      record: Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, cellText(value)]))
    }
  })
})

/** An export's rows; a file that is not a regular file is one row, reported. */
const rowsOf = (config: FileConfig, inbox: Inbox, file: string): Stream.Stream<Row, ConnectorFailed> =>
  Stream.unwrap(
    Effect.map(
      openPortalFile(inbox, file, {
        encoding: config.encoding ?? "utf-8",
        notDecodable: (problem) => notDecodableMessage(file, problem, encodingHint(config))
      }),
      (opened): Stream.Stream<Row, ConnectorFailed> =>
        opened._tag === "Unread"
          ? Stream.make({ _tag: "Unreadable", locator: file, reason: opened.reason })
          : config.format === "csv"
            ? csvRows(config, file, opened.chunks)
            : Stream.fromIterableEffect(jsonRows(config, file, opened))
    )
  )

/**
 * Every export's documents, newest name first, each key once: a key's row in a later export
 * replaces its row in an earlier one, and only the keys already given are remembered.
 */
const fetchDocuments = Effect.fn("FileConnector.fetch")(function* (pair: PairToFetch) {
  const config = yield* configOf({ kind: "file", configSchema: FileConfig }, pair.config)
  const extension = `.${config.format}`
  const inbox = yield* openInbox(config.directory, config.sftp, pair, (directory) => `the directory ${directory}`)
  const exports = (yield* inbox.list).filter((entry) => entry.name.toLowerCase().endsWith(extension))
  const plan = planInNameOrder(inbox, exports)
  const newestFirst = plan.files.toReversed()
  // Each key given, with the export it came from: a key repeated in the same export is reported.
  const given = new Map<string, number>()
  const documentsOf = (file: string, index: number, row: Row): ReadonlyArray<FetchedDocument> => {
    const reference = { file_reference: file }
    if (row._tag === "Unreadable") return [unreadableDocument(row.locator, [row.reason], reference)]
    const document = documentOf(config, row.record, file)
    const key = document.documentKey
    if (key === "") {
      return [unreadableDocument(row.locator, [`the "${config.columns.documentKey}" column is empty`], reference)]
    }
    const earlier = given.get(key)
    if (earlier === index) {
      const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key
      return [unreadableDocument(row.locator, [`repeats the document key "${shown}" of an earlier row`], reference)]
    }
    // A newer export's row for this key was given already: this older one is replaced.
    if (earlier !== undefined) return []
    given.set(key, index)
    return [document]
  }
  return Stream.fromIterable(newestFirst.map((file, index) => [file, index] as const)).pipe(
    Stream.flatMap(([file, index]) =>
      rowsOf(config, inbox, file).pipe(
        Stream.map((row) => documentsOf(file, index, row)),
        Stream.flattenIterable
      )
    ),
    // Only a fetch that read every file it planned to, once the engine has applied it, counts them as read.
    Stream.concat(Stream.fromEffectDrain(whenApplied(pair, plan.done)))
  )
})

export const connector = {
  kind: "file",
  configSchema: FileConfig,
  statusMapping: makeStatusMapping({}),
  statusMappingOf: configuredStatusMapping,
  defaultInterval: Duration.minutes(15),
  fetch: (pair) => Stream.unwrap(fetchDocuments(pair))
} satisfies PortalConnector
