/**
 * `AuditLog` in memory: the twin of the PostgreSQL log for embedders and fast tests, held to the
 * same contract (`test/contracts/AuditLog.contract.ts`). An entry is stored when `record`
 * returns, so nothing is ever pending; `recent` answers newest first, and of entries at the same
 * instant the later recorded first, as the table's identity orders them. Entries are never
 * changed or removed (retention is the database's concern). Depends on `effect` and core only.
 */
import { DateTime, Effect, Layer } from "effect"
import { type AuditEntry, AuditLog } from "../ports/AuditLog.ts"

// Organization ids are UUIDs, compared without regard to case as PostgreSQL's `uuid` type does.
const sameOrg = (a: string | null, b: string) => a !== null && a.toLowerCase() === b.toLowerCase()

export const layerMemory: Layer.Layer<AuditLog> = Layer.sync(AuditLog, () => {
  const entries: Array<AuditEntry> = []

  const record = (entry: AuditEntry) =>
    Effect.sync(() => {
      entries.push(entry)
    }).pipe(Effect.withSpan("MemoryAuditLog.record"))

  const recent = (options: { readonly orgId?: string | undefined; readonly limit: number }) =>
    Effect.sync(() =>
      entries
        .map((entry, order) => ({ entry, order }))
        .filter(({ entry }) => options.orgId === undefined || sameOrg(entry.orgId, options.orgId))
        .sort((a, b) => DateTime.toEpochMillis(b.entry.at) - DateTime.toEpochMillis(a.entry.at) || b.order - a.order)
        .slice(0, Math.max(0, options.limit))
        .map(({ entry }) => entry)
    )

  return AuditLog.of({ record, recent, pending: Effect.succeed(0) })
})
