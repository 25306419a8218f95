/**
 * Webhook deliveries' retention in the bundled app: `WEBHOOK_RETENTION_DAYS` (default 30, at
 * least 7) says how long finished deliveries and their attempts are kept. At start and every six
 * hours, those made longer ago are removed. Pending ones wait for their attempt; those of a
 * disabled endpoint wait for it to be enabled again, but no longer than the events' retention
 * (`EVENT_RETENTION_DAYS`): past it a replay could not re-create them either.
 */
import { Config, DateTime, Duration, Effect, Layer, Schedule, Schema } from "effect"
import { retentionDays as eventRetentionDays } from "../core/receivables/services/Feed.ts"
import { WebhookDeliveryStore } from "../core/webhooks/ports/WebhookDeliveryStore.ts"

export const retentionDays = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(7)),
  "WEBHOOK_RETENTION_DAYS"
).pipe(Config.withDefault(30))

/** Applies the retention once, logging what it removed. */
export const apply = Effect.gen(function* () {
  const days = yield* retentionDays
  const eventDays = yield* eventRetentionDays
  const now = yield* DateTime.now
  const removed = yield* (yield* WebhookDeliveryStore).prune({
    finishedBefore: DateTime.subtractDuration(now, Duration.days(days)),
    waitingBefore: DateTime.subtractDuration(now, Duration.days(eventDays))
  })
  if (removed > 0) {
    yield* Effect.logInfo("webhook deliveries past their retention removed").pipe(
      Effect.annotateLogs({ removed, days, eventDays })
    )
  }
  return removed
})

/** Applies the retention at start and every six hours while the layer lives; a failure is logged and retried then. */
export const layer = Layer.effectDiscard(
  Effect.forkScoped(
    apply.pipe(
      Effect.catchCause((cause) => Effect.logWarning("the webhook deliveries' retention could not be applied", cause)),
      Effect.repeat(Schedule.spaced("6 hours"))
    )
  )
)
