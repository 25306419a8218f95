/**
 * Retries as a receiver sees them, on `TestClock`, run on the memory store and on PostgreSQL: a
 * retry that came due goes before a backlog of new events of its endpoint, and a manual retry
 * that fails leaves the schedule where it was (the next automatic attempt, and the delay after it).
 */
import { assert, layer as withLayer } from "@effect/vitest"
import { DateTime, Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import type { DashboardAuditLog } from "../../core/accounts/ports/DashboardAuditLog.ts"
import type { EventFeed } from "../../core/receivables/ports/EventFeed.ts"
import type { PairStore } from "../../core/receivables/ports/PairStore.ts"
import { nextDelay, retryDelays } from "../../core/webhooks/domain/WebhookSchedule.ts"
import type { WebhookDeliveryStore } from "../../core/webhooks/ports/WebhookDeliveryStore.ts"
import type { WebhookEndpointStore } from "../../core/webhooks/ports/WebhookEndpointStore.ts"
import { WebhookSender } from "../../core/webhooks/ports/WebhookSender.ts"
import { WebhookDelivery } from "../../core/webhooks/services/WebhookDelivery.ts"
import { WebhookEndpoints } from "../../core/webhooks/services/WebhookEndpoints.ts"
import { PairStoreHarness } from "../contracts/PairStore.harness.ts"
import { deliverDue } from "./support/Deliver.ts"
import { services, workerOptions } from "./support/Services.ts"
import { syncEvents } from "./support/Sync.ts"

/** What the receivers were sent: where, and each event's id. */
const sent: Array<{ readonly url: string; readonly eventId: string }> = []
let answer = 500

const scriptedReceiver = Layer.succeed(
  WebhookSender,
  WebhookSender.of({
    check: () => Effect.void,
    send: (request) =>
      Effect.sync(() => {
        sent.push({ url: request.url, eventId: request.headers["webhook-id"]! })
        return { kind: "answered" as const, status: answer, retryAfterSeconds: null, body: "", durationMs: 1 }
      })
  })
)

// One attempt at a time to the endpoint: the order of the posts is the order of the claims.
const oneAtATime = workerOptions({ concurrency: 1, perEndpoint: 1 })

export const describeRetries = (
  name: string,
  storage: Layer.Layer<
    PairStore | EventFeed | PairStoreHarness | WebhookEndpointStore | WebhookDeliveryStore | DashboardAuditLog,
    unknown
  >
) =>
  withLayer(services.pipe(Layer.provideMerge(Layer.merge(storage, scriptedReceiver))), { timeout: 120_000 })(
    `webhook retries: ${name}`,
    (it) => {
      // Each test its own endpoint: the layer, and the deliveries of the tests before, are shared.
      const setUp = (path: string) =>
        Effect.gen(function* () {
          const harness = yield* PairStoreHarness
          const endpoints = yield* WebhookEndpoints
          const pair = yield* harness.addPair({ dueInSeconds: 3600 })
          const url = `https://hooks.example/${path}`
          const { endpoint } = yield* endpoints.create(pair.orgId, { url })
          const posted = () => sent.filter((post) => post.url === url)
          const onlyDelivery = Effect.gen(function* () {
            const [delivery] = (yield* endpoints.deliveries(pair.orgId, endpoint.id, { limit: 1 })).items
            return delivery!
          })
          return { pair, endpoint, onlyDelivery, posted }
        })

      it.effect("a retry that came due goes before the endpoint's backlog of new events", () =>
        Effect.gen(function* () {
          const worker = yield* WebhookDelivery
          const { pair, endpoint, posted } = yield* setUp("backlog")
          answer = 500
          yield* syncEvents(pair, 1)
          yield* deliverDue(pair.orgId, endpoint.id, oneAtATime)
          const failed = posted()[0]!.eventId
          // A burst arrives while the retry waits: its first attempts came due before the retry did.
          yield* syncEvents(pair, 6)
          yield* worker.fanOut
          yield* TestClock.adjust(Duration.seconds(10))
          yield* deliverDue(pair.orgId, endpoint.id, oneAtATime)
          assert.lengthOf(posted(), 8)
          assert.strictEqual(posted()[1]!.eventId, failed)
          assert.notInclude(
            posted()
              .slice(2)
              .map((p) => p.eventId),
            failed
          )
        })
      )

      it.effect(
        "a manual retry that fails leaves the next automatic attempt where it was, and the delay after it",
        () =>
          Effect.gen(function* () {
            const endpoints = yield* WebhookEndpoints
            const { pair, endpoint, onlyDelivery, posted } = yield* setUp("manual")
            answer = 500
            yield* syncEvents(pair, 1)
            yield* deliverDue(pair.orgId, endpoint.id, oneAtATime)
            yield* TestClock.setTime(DateTime.toEpochMillis((yield* onlyDelivery).nextAttemptAt!))
            yield* deliverDue(pair.orgId, endpoint.id, oneAtATime)
            const scheduled = yield* onlyDelivery
            assert.strictEqual(scheduled.attempts, 2)
            // A minute into the 5 minutes before the third attempt, "Retry now", and it fails.
            yield* TestClock.adjust(Duration.minutes(1))
            yield* endpoints.retry(pair.orgId, scheduled.id)
            yield* deliverDue(pair.orgId, endpoint.id, oneAtATime)
            assert.lengthOf(posted(), 3)
            const after = yield* onlyDelivery
            assert.strictEqual(after.status, "pending")
            assert.strictEqual(after.attempts, 3)
            assert.deepStrictEqual(after.nextAttemptAt, scheduled.nextAttemptAt)
            // The automatic attempt comes then, not a moment before, and the delay after it is the
            // schedule's third (30 minutes), as if no manual retry had been made.
            const due = DateTime.toEpochMillis(scheduled.nextAttemptAt!)
            yield* TestClock.setTime(due - 1)
            yield* deliverDue(pair.orgId, endpoint.id, oneAtATime)
            assert.lengthOf(posted(), 3)
            yield* TestClock.setTime(due)
            yield* deliverDue(pair.orgId, endpoint.id, oneAtATime)
            assert.lengthOf(posted(), 4)
            const next = yield* onlyDelivery
            const gap = DateTime.toEpochMillis(next.nextAttemptAt!) - due
            assert.isAtLeast(gap, Duration.toMillis(nextDelay(3, 0)!))
            assert.isAtMost(gap, Math.ceil(Duration.toMillis(retryDelays[3]!) * 1.2))
            const { attempts } = yield* endpoints.delivery(pair.orgId, next.id)
            assert.deepStrictEqual(
              attempts.map((a) => a.trigger),
              ["scheduled", "retry", "manual_retry", "retry"]
            )
          })
      )

      it.effect("a manual retry of a delivery that had succeeded, failing, ends it failed with nothing scheduled", () =>
        Effect.gen(function* () {
          const endpoints = yield* WebhookEndpoints
          const { pair, endpoint, onlyDelivery, posted } = yield* setUp("succeeded")
          answer = 200
          yield* syncEvents(pair, 1)
          yield* deliverDue(pair.orgId, endpoint.id, oneAtATime)
          assert.strictEqual((yield* onlyDelivery).status, "succeeded")
          answer = 500
          yield* endpoints.retry(pair.orgId, (yield* onlyDelivery).id)
          yield* deliverDue(pair.orgId, endpoint.id, oneAtATime)
          const after = yield* onlyDelivery
          assert.strictEqual(after.status, "failed")
          assert.isNull(after.nextAttemptAt)
          yield* TestClock.adjust(Duration.days(4))
          yield* deliverDue(pair.orgId, endpoint.id, oneAtATime)
          assert.lengthOf(posted(), 2)
        })
      )
    }
  )
