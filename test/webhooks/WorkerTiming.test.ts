/**
 * The worker's timing on `TestClock`, with a receiver that always fails: each attempt comes when
 * the schedule says (within its jitter) and not before, the delivery fails once the schedule is
 * exhausted (each attempt after the first a `retry`), and an endpoint failing for 5 days is
 * disabled, the organization told in its audit; enabled again, what waited is sent.
 * A rotated-out secret signs for 24 hours on the clock, and not a moment longer.
 */
import { assert, layer as withLayer } from "@effect/vitest"
import { DateTime, Duration, Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { DashboardAuditLog } from "../../core/accounts/ports/DashboardAuditLog.ts"
import { nextDelay, retryDelays } from "../../core/webhooks/domain/WebhookSchedule.ts"
import { WebhookSender } from "../../core/webhooks/ports/WebhookSender.ts"
import { WebhookEndpoints } from "../../core/webhooks/services/WebhookEndpoints.ts"
import { PairStoreHarness } from "../contracts/PairStore.harness.ts"
import { deliverDue } from "./support/Deliver.ts"
import { memoryStorage, services } from "./support/Services.ts"
import { syncEvents } from "./support/Sync.ts"

let answer = 500
const posted: Array<number> = []
const signatures: Array<number> = []

const failingReceiver = Layer.succeed(
  WebhookSender,
  WebhookSender.of({
    check: () => Effect.void,
    send: (request) =>
      Effect.map(DateTime.now, (now) => {
        posted.push(DateTime.toEpochMillis(now))
        signatures.push(request.headers["webhook-signature"]!.split(" ").length)
        return { kind: "answered" as const, status: answer, retryAfterSeconds: null, body: "", durationMs: 1 }
      })
  })
)

withLayer(services.pipe(Layer.provideMerge(Layer.merge(memoryStorage, failingReceiver))))(
  "the webhook worker's timing",
  (it) => {
    it.effect(
      "attempts follow the schedule on the clock, the delivery fails after the last, and 5 days of failing disable",
      () =>
        Effect.gen(function* () {
          const harness = yield* PairStoreHarness
          const endpoints = yield* WebhookEndpoints
          const pair = yield* harness.addPair({ dueInSeconds: 3600 })
          const { endpoint } = yield* endpoints.create(pair.orgId, { url: "https://hooks.example/in" })
          yield* syncEvents(pair, 1)
          const deliveryOf = Effect.gen(function* () {
            const [delivery] = (yield* endpoints.deliveries(pair.orgId, endpoint.id, { limit: 1 })).items
            return delivery!
          })
          yield* deliverDue(pair.orgId, endpoint.id)
          for (let made = 1; made < retryDelays.length; made++) {
            const delivery = yield* deliveryOf
            assert.strictEqual(delivery.attempts, made)
            assert.strictEqual(delivery.status, "pending")
            const due = DateTime.toEpochMillis(delivery.nextAttemptAt!)
            const base = Duration.toMillis(retryDelays[made]!)
            const gap = due - posted.at(-1)!
            assert.isAtLeast(gap, Duration.toMillis(nextDelay(made, 0)!))
            assert.isAtMost(gap, Math.ceil(base * 1.2))
            // Not a moment before it is due.
            yield* TestClock.setTime(due - 1)
            yield* deliverDue(pair.orgId, endpoint.id)
            assert.lengthOf(posted, made)
            yield* TestClock.setTime(due)
            yield* deliverDue(pair.orgId, endpoint.id)
            assert.lengthOf(posted, made + 1)
          }
          const exhausted = yield* deliveryOf
          assert.strictEqual(exhausted.status, "failed")
          assert.isNull(exhausted.nextAttemptAt)
          // The first attempt came from the feed, every later one from the schedule.
          const { attempts } = yield* endpoints.delivery(pair.orgId, exhausted.id)
          assert.deepStrictEqual(
            attempts.map((a) => a.trigger),
            ["scheduled", ...retryDelays.slice(1).map(() => "retry")]
          )
          // About three days of failing so far: still enabled. A new event's attempt after 5 days of
          // failing disables the endpoint.
          assert.isTrue((yield* endpoints.get(pair.orgId, endpoint.id)).enabled)
          yield* TestClock.setTime(posted[0]! + Duration.toMillis(Duration.days(5)))
          yield* syncEvents(pair, 1)
          yield* deliverDue(pair.orgId, endpoint.id)
          const disabled = yield* endpoints.get(pair.orgId, endpoint.id)
          assert.isFalse(disabled.enabled)
          assert.strictEqual(disabled.disabledReason, "failing")
          const told = yield* (yield* DashboardAuditLog).search({ orgId: pair.orgId, limit: 10 })
          assert.deepStrictEqual(
            told.map(({ entry }) => [entry.user?.userId, entry.action, entry.subject]),
            [[null, "webhook_endpoint_disabled", "https://hooks.example/in: it failed for 5 days"]]
          )
          // Disabled, nothing is attempted, however long it waits; enabled again, what waited is sent.
          const sent = posted.length
          yield* TestClock.adjust(Duration.days(2))
          yield* deliverDue(pair.orgId, endpoint.id)
          assert.lengthOf(posted, sent)
          answer = 200
          yield* endpoints.update(pair.orgId, endpoint.id, { enabled: true })
          yield* deliverDue(pair.orgId, endpoint.id)
          assert.lengthOf(posted, sent + 1)
          const last = yield* deliveryOf
          assert.strictEqual(last.status, "succeeded")
          assert.isTrue(Option.isNone(Option.fromNullishOr(last.nextAttemptAt)))
        })
    )

    it.effect("a rotated-out secret signs beside the new one for 24 hours, and then no more", () =>
      Effect.gen(function* () {
        const harness = yield* PairStoreHarness
        const endpoints = yield* WebhookEndpoints
        answer = 200
        const pair = yield* harness.addPair({ dueInSeconds: 3600 })
        const { endpoint } = yield* endpoints.create(pair.orgId, { url: "https://hooks.example/in" })
        const send = Effect.gen(function* () {
          yield* syncEvents(pair, 1)
          yield* deliverDue(pair.orgId, endpoint.id)
          return signatures.at(-1)
        })
        assert.strictEqual(yield* send, 1)
        yield* endpoints.rotateSecret(pair.orgId, endpoint.id)
        assert.strictEqual(yield* send, 2)
        yield* TestClock.adjust(Duration.hours(23))
        assert.strictEqual(yield* send, 2)
        yield* TestClock.adjust(Duration.hours(1))
        assert.strictEqual(yield* send, 1)
      })
    )
  }
)
