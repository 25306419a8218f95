/**
 * `DashboardAuditLog` in memory, over the shared `MemoryState`, for embedders and fast tests; it passes the same contract as
 * the PostgreSQL log (`test/contracts/DashboardAuditLog.contract.ts`): newest first, and of
 * entries at the same instant the later recorded first; entries of no user belong to no
 * organization's reading. Depends on effect and the core.
 */
import { DateTime, Effect, Layer } from "effect"
import type { OrgId } from "../domain/Ids.ts"
import { DashboardAuditLog } from "../ports/DashboardAuditLog.ts"
import { MemoryState } from "./MemoryState.ts"

const make = Effect.gen(function* () {
  const entries = (yield* MemoryState).dashboardAudit
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

export const layerMemory: Layer.Layer<DashboardAuditLog, never, MemoryState> = Layer.effect(DashboardAuditLog, make)
