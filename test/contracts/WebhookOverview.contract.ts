/**
 * The contract of the `WebhookOverview` port, run on the memory twin and on PostgreSQL, through
 * the webhook services with a receiver on loopback: an endpoint's health is its last attempt, the
 * share of its latest 50 attempts that succeeded and what waits; disabled endpoints are listed
 * with their reason; every read stays within the organization asked for.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import type { DashboardAuditLog } from "../../core/accounts/ports/DashboardAuditLog.ts"
import type { EventFeed } from "../../core/receivables/ports/EventFeed.ts"
import type { PairStore } from "../../core/receivables/ports/PairStore.ts"
import type { WebhookDeliveryStore } from "../../core/webhooks/ports/WebhookDeliveryStore.ts"
import type { WebhookEndpointStore } from "../../core/webhooks/ports/WebhookEndpointStore.ts"
import { recentAttempts, WebhookOverview } from "../../core/webhooks/ports/WebhookOverview.ts"
import { WebhookEndpoints } from "../../core/webhooks/services/WebhookEndpoints.ts"
import { type Answer, receiver } from "../webhooks/support/Receiver.ts"
import { senderLayer, services } from "../webhooks/support/Services.ts"
import { syncEvents } from "../webhooks/support/Sync.ts"
import { PairStoreHarness } from "./PairStore.harness.ts"

const status =
  (code: number): Answer =>
  (_, response) =>
    response.writeHead(code).end()

/** `storage`: the overview, the webhook stores and the dashboard's audit, over the pairs' harness. */
export const describeWebhookOverview = (
  name: string,
  storage: Layer.Layer<
    | WebhookOverview
    | PairStore
    | EventFeed
    | PairStoreHarness
    | WebhookEndpointStore
    | WebhookDeliveryStore
    | DashboardAuditLog,
    unknown
  >
) =>
  layer(services.pipe(Layer.provideMerge(Layer.merge(storage, senderLayer()))), {
    timeout: 120_000,
    excludeTestServices: true
  })(`WebhookOverview contract (${name})`, (it) => {
    it.effect("answers each endpoint's last attempt, its recent success rate and what waits, in one organization", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const harness = yield* PairStoreHarness
          const endpoints = yield* WebhookEndpoints
          const overview = yield* WebhookOverview
          const hooks = yield* receiver()
          const pair = yield* harness.addPair({ dueInSeconds: 3600 })
          const other = yield* harness.addPair({ dueInSeconds: 3600 })
          const tested = (yield* endpoints.create(pair.orgId, { url: hooks.url })).endpoint
          const quiet = (yield* endpoints.create(pair.orgId, { url: hooks.url })).endpoint
          const foreign = (yield* endpoints.create(other.orgId, { url: hooks.url })).endpoint

          // The first two failures fall out of the window of the latest 50 attempts.
          for (const code of [500, 503, ...Array.from({ length: recentAttempts - 1 }, () => 200), 500]) {
            hooks.answer = status(code)
            yield* endpoints.test(pair.orgId, tested.id)
          }
          const since = DateTime.subtract(yield* DateTime.now, { minutes: 1 })
          yield* syncEvents(pair, 4)
          assert.strictEqual((yield* endpoints.replay(pair.orgId, quiet.id, { since })).queued, 4)

          const health = yield* overview.health(pair.orgId, [tested.id, quiet.id, foreign.id])
          assert.deepStrictEqual(
            health.map((h) => h.endpointId),
            [tested.id, quiet.id],
            "another organization's endpoint is skipped"
          )
          const [ofTested, ofQuiet] = health
          assert.strictEqual(ofTested!.lastAttempt?.outcome, "http_error")
          assert.strictEqual(ofTested!.attempts, recentAttempts)
          assert.strictEqual(ofTested!.succeeded, recentAttempts - 1)
          assert.strictEqual(ofTested!.pending, 3, "each failed test waits for its retry")
          assert.deepStrictEqual(
            { ...ofQuiet! },
            { endpointId: quiet.id, lastAttempt: null, attempts: 0, succeeded: 0, pending: 4 }
          )
          assert.deepStrictEqual(yield* overview.health(other.orgId, [tested.id, quiet.id]), [])
          assert.deepStrictEqual(yield* overview.health(pair.orgId, []), [])
        })
      )
    )

    it.effect("lists an organization's disabled endpoints in id order with their reason, at most the limit", () =>
      Effect.gen(function* () {
        const harness = yield* PairStoreHarness
        const endpoints = yield* WebhookEndpoints
        const overview = yield* WebhookOverview
        const pair = yield* harness.addPair({ dueInSeconds: 3600 })
        const other = yield* harness.addPair({ dueInSeconds: 3600 })
        const url = "http://127.0.0.1:9/hooks"
        const made = []
        for (let i = 0; i < 4; i++) made.push((yield* endpoints.create(pair.orgId, { url })).endpoint)
        const foreign = (yield* endpoints.create(other.orgId, { url })).endpoint
        yield* endpoints.update(other.orgId, foreign.id, { enabled: false })
        assert.deepStrictEqual(yield* overview.disabled(pair.orgId, 10), [])

        for (const endpoint of [made[3]!, made[0]!, made[2]!]) {
          yield* endpoints.update(pair.orgId, endpoint.id, { enabled: false })
        }
        const listed = yield* overview.disabled(pair.orgId, 10)
        // Ids made in one millisecond are not in the order they were made: sorted as the query sorts.
        const disabledIds = [made[0]!, made[2]!, made[3]!].map((e) => e.id).sort()
        assert.deepStrictEqual(
          listed.map((d) => [d.id, d.reason, d.url]),
          disabledIds.map((id) => [id, "manual", url])
        )
        assert.isTrue(listed.every((d) => d.disabledAt !== null))
        assert.deepStrictEqual(
          (yield* overview.disabled(pair.orgId, 2)).map((d) => d.id),
          disabledIds.slice(0, 2)
        )
        assert.deepStrictEqual(
          (yield* overview.disabled(other.orgId, 10)).map((d) => d.id),
          [foreign.id]
        )
      })
    )
  })
