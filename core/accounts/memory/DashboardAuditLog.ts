/**
 * `DashboardAuditLog` in memory, over the memory world's `AccountsState`, for embedders and fast tests; it passes the same contract as
 * the PostgreSQL log (`test/contracts/DashboardAuditLog.contract.ts`): newest first, and of
 * entries at the same instant the later recorded first; entries of no user belong to no
 * organization's reading. Depends on effect and the core.
 */
import { DateTime, Effect, Layer } from "effect"
import type { OrgId } from "../../shared/domain/Ids.ts"
import {
  type DashboardAuditEntry,
  DashboardAuditLog,
  type DashboardAuditSearch,
  type StoredDashboardAuditEntry
} from "../ports/DashboardAuditLog.ts"
import { AccountsState } from "./AccountsState.ts"

/** Newest first; of entries at the same instant, the later recorded first. */
const newestFirst = (a: StoredDashboardAuditEntry, b: StoredDashboardAuditEntry) =>
  DateTime.toEpochMillis(b.position.at) - DateTime.toEpochMillis(a.position.at) ||
  b.position.sequence - a.position.sequence

const make = Effect.gen(function* () {
  const tables = yield* AccountsState
  const entries = tables.dashboardAudit
  // An entry's sequence is the order it was recorded in, kept beside it: pruning leaves it as it is.
  const sequences = new WeakMap<DashboardAuditEntry, number>()
  let recorded = 0
  const stored = () =>
    entries.map((entry) => ({ entry, position: { at: entry.at, sequence: sequences.get(entry) ?? 0 } }))
  return DashboardAuditLog.of({
    search: (query: DashboardAuditSearch) =>
      Effect.sync(() =>
        stored()
          .filter(
            ({ entry, position }) =>
              entry.user?.orgId === query.orgId.toLowerCase() &&
              (query.action === undefined || entry.action === query.action) &&
              (query.userId === undefined || entry.user.userId === query.userId.toLowerCase()) &&
              (query.before === undefined || newestFirst({ entry, position }, { entry, position: query.before }) > 0)
          )
          .sort(newestFirst)
          .slice(0, Math.max(0, query.limit))
      ),
    prune: (before: DateTime.Utc) =>
      Effect.sync(() => {
        const kept = entries.filter((entry) => !DateTime.isLessThan(entry.at, before))
        const count = entries.length - kept.length
        entries.splice(0, entries.length, ...kept)
        return count
      }),
    record: (entry) =>
      Effect.sync(() => {
        sequences.set(entry, recorded++)
        entries.push(entry)
      }),
    recent: (org: OrgId, limit: number) =>
      Effect.sync(() =>
        entries
          .map((entry, order) => ({ entry, order }))
          .filter(({ entry }) => entry.user?.orgId === org.toLowerCase())
          .sort((a, b) => DateTime.toEpochMillis(b.entry.at) - DateTime.toEpochMillis(a.entry.at) || b.order - a.order)
          .slice(0, Math.max(0, limit))
          .map(({ entry }) => entry)
      )
  })
})

export const layerMemory: Layer.Layer<DashboardAuditLog, never, AccountsState> = Layer.effect(DashboardAuditLog, make)
