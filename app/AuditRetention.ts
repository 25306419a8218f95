/**
 * The audit log's retention in the bundled app: `AUDIT_RETENTION_DAYS` (default 400, at least
 * 31) says how long entries are kept. At start and every six hours, the coming months'
 * partitions are created and the months wholly older than the retention are dropped; operators
 * can do the same at any time with `audit prune`.
 */
import { Config, Duration, Effect, Layer, Schedule, Schema } from "effect"
import { maintainPartitions } from "../adapters/postgres/PgAuditLog.ts"

export const retentionDays = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(31)),
  "AUDIT_RETENTION_DAYS"
).pipe(Config.withDefault(400))

/** Applies the retention once, logging what changed. */
export const apply = Effect.gen(function* () {
  const days = yield* retentionDays
  const changes = yield* maintainPartitions(Duration.days(days))
  for (const change of changes) {
    yield* Effect.logInfo(`audit log partition ${change.action}`).pipe(Effect.annotateLogs({ ...change }))
  }
  return changes
})

/** Applies the retention at start and every six hours while the layer lives; a failure is logged and retried then. */
export const layer = Layer.effectDiscard(
  Effect.forkScoped(
    apply.pipe(
      Effect.catchCause((cause) => Effect.logWarning("audit log retention could not be applied", cause)),
      Effect.repeat(Schedule.spaced("6 hours"))
    )
  )
)
