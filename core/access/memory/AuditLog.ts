/**
 * `AuditLog` in memory, over the memory world's `AccessState`: the twin of the PostgreSQL log for
 * embedders and fast tests, held to the same contract (`test/contracts/AuditLog.contract.ts`). An
 * entry is stored, and its usage counted on its key (`KeyUsageStore.ts`), when `record` returns,
 * so nothing is ever pending; `recent` answers newest first, and of entries at the same instant
 * the later recorded first, as the table's identity orders them. Entries are never changed or
 * removed (retention is the database's concern). Depends on `effect` and core only.
 */
import { DateTime, Effect, Layer } from "effect"
import {
  type AuditEntry,
  AuditLog,
  type AuditPosition,
  type AuditSearch,
  type StoredAuditEntry
} from "../ports/AuditLog.ts"
import { AccessState } from "./AccessState.ts"
import { countUsage } from "./KeyUsageStore.ts"

// Organization and key ids are UUIDs, compared without regard to case as PostgreSQL's `uuid` type does.
const sameId = (a: string | null, b: string) => a !== null && a.toLowerCase() === b.toLowerCase()

const millis = DateTime.toEpochMillis

/** Whether `a` comes before `b` in the log's order (older, or as old and stored earlier). */
const isBefore = (a: AuditPosition, b: AuditPosition) =>
  millis(a.at) < millis(b.at) || (millis(a.at) === millis(b.at) && a.sequence < b.sequence)

const newestFirst = (a: StoredAuditEntry, b: StoredAuditEntry) =>
  millis(b.position.at) - millis(a.position.at) || b.position.sequence - a.position.sequence

/** Whether the stored entry is one the search asks for, paging aside. */
const matchesSearch = (query: AuditSearch, { entry, position }: StoredAuditEntry) =>
  sameId(entry.orgId, query.orgId) &&
  millis(entry.at) >= millis(query.since) &&
  millis(entry.at) < millis(query.until) &&
  (query.keyId === undefined || sameId(entry.keyId, query.keyId)) &&
  (query.statusClass === undefined || Math.floor(entry.status / 100) === query.statusClass) &&
  (query.path === undefined ||
    (query.path.match === "exact" ? entry.path === query.path.value : entry.path.startsWith(query.path.value))) &&
  (query.requestId === undefined || entry.requestId === query.requestId) &&
  (query.before === undefined || isBefore(position, query.before)) &&
  (query.after === undefined || isBefore(query.after, position))

const make = Effect.gen(function* () {
  const tables = yield* AccessState
  const stored = tables.auditLog

  const record = (entry: AuditEntry) =>
    Effect.sync(() => {
      stored.push({ entry, position: { at: entry.at, sequence: stored.length + 1 } })
      const { keyId, orgId } = entry
      if (keyId !== null && orgId !== null) countUsage(tables, [{ at: entry.at, keyId, orgId, status: entry.status }])
    }).pipe(Effect.withSpan("MemoryAuditLog.record"))

  const recent = (options: { readonly orgId?: string | undefined; readonly limit: number }) =>
    Effect.sync(() =>
      stored
        .filter(({ entry }) => options.orgId === undefined || sameId(entry.orgId, options.orgId))
        .sort(newestFirst)
        .slice(0, Math.max(0, options.limit))
        .map(({ entry }) => entry)
    )

  const search = (query: AuditSearch) =>
    Effect.sync(() => {
      const found = stored.filter((item) => matchesSearch(query, item)).sort(newestFirst)
      const limit = Math.max(0, query.limit)
      return query.after === undefined ? found.slice(0, limit) : found.slice(Math.max(0, found.length - limit))
    })

  return AuditLog.of({ record, keep: record, recent, search, pending: Effect.succeed(0) })
})

export const layerMemory: Layer.Layer<AuditLog, never, AccessState> = Layer.effect(AuditLog, make)
