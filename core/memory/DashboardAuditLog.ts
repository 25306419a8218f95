/**
 * `DashboardAuditLog` in memory, for embedders and fast tests; it passes the same contract as
 * the PostgreSQL log (`test/contracts/DashboardAuditLog.contract.ts`): newest first, and of
 * entries at the same instant the later recorded first; entries of no user belong to no
 * organization's reading. Depends on effect and the core.
 */
import { DateTime, Effect, Layer } from "effect"
import type { OrgId } from "../domain/Ids.ts"
import { type DashboardAuditEntry, DashboardAuditLog } from "../ports/DashboardAuditLog.ts"

export const layerMemory: Layer.Layer<DashboardAuditLog> = Layer.sync(DashboardAuditLog, () => {
  const entries: Array<DashboardAuditEntry> = []
  return DashboardAuditLog.of({
    record: (entry) =>
      Effect.sync(() => {
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
