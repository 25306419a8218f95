/**
 * The dashboard actions' retention in the bundled app: `DASHBOARD_AUDIT_RETENTION_DAYS` (default
 * 400, as the request audit log's, at least 31) says how long what people did in the dashboard is
 * kept. At start and every six hours, older entries are deleted; nothing else ever removes one.
 */
import { Config, DateTime, Effect, Layer, Schedule, Schema } from "effect"
import * as PgDashboardAuditLog from "../adapters/postgres/PgDashboardAuditLog.ts"
import { DashboardAuditLog } from "../core/accounts/ports/DashboardAuditLog.ts"

export const retentionDays = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(31)),
  "DASHBOARD_AUDIT_RETENTION_DAYS"
).pipe(Config.withDefault(400))

/** Applies the retention once, logging what it removed. */
export const apply = Effect.gen(function* () {
  const days = yield* retentionDays
  const removed = yield* (yield* DashboardAuditLog).prune(DateTime.subtract(yield* DateTime.now, { days }))
  if (removed > 0) {
    yield* Effect.logInfo("dashboard actions past their retention removed").pipe(Effect.annotateLogs({ removed, days }))
  }
  return removed
})

/** Applies the retention at start and every six hours while the layer lives; a failure is logged and retried then. */
export const layer = Layer.effectDiscard(
  Effect.forkScoped(
    apply.pipe(
      Effect.catchCause((cause) => Effect.logWarning("the dashboard actions' retention could not be applied", cause)),
      Effect.repeat(Schedule.spaced("6 hours"))
    )
  )
).pipe(Layer.provide(PgDashboardAuditLog.layer))
