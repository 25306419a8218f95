/**
 * The events feed's retention in the bundled app: `EVENT_RETENTION_DAYS` (default 30, at least
 * 30) says how long events are kept. At start and every six hours, the events of syncs committed
 * longer ago are removed; a client whose cursor falls in the removed range is told to reload.
 */
import { Duration, Effect, Layer, Schedule } from "effect"
import { Feed, retentionDays } from "../core/receivables/services/Feed.ts"

/** Applies the retention once, logging what it removed. */
export const apply = Effect.gen(function* () {
  const days = yield* retentionDays
  const removed = yield* (yield* Feed).prune(Duration.days(days))
  if (removed > 0)
    yield* Effect.logInfo("events past their retention removed").pipe(Effect.annotateLogs({ removed, days }))
  return removed
})

/** Applies the retention at start and every six hours while the layer lives; a failure is logged and retried then. */
export const layer = Layer.effectDiscard(
  Effect.forkScoped(
    apply.pipe(
      Effect.catchCause((cause) => Effect.logWarning("the events retention could not be applied", cause)),
      Effect.repeat(Schedule.spaced("6 hours"))
    )
  )
)
