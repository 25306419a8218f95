/**
 * `PgWebhookOverview` against the webhook services over PostgreSQL, with a receiver on loopback:
 * an endpoint's health is its last attempt, the share of its latest 50 attempts that succeeded
 * and what waits; disabled endpoints are listed with their reason; every read stays within the
 * organization asked for.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import * as PgDashboardAuditLog from "../../../adapters/postgres/PgDashboardAuditLog.ts"
import * as PgWebhookOverview from "../../../adapters/postgres/PgWebhookOverview.ts"
import * as PgWebhookStore from "../../../adapters/postgres/PgWebhookStore.ts"
import { recentAttempts, WebhookOverview } from "../../../core/ports/WebhookOverview.ts"
import { WebhookEndpoints } from "../../../core/services/WebhookEndpoints.ts"
import { PairStoreHarness } from "../../contracts/PairStore.harness.ts"
import * as PostgresHarness from "../../contracts/PairStore.postgresHarness.ts"
import { type Answer, receiver } from "../../webhooks/support/Receiver.ts"
import { senderLayer, services } from "../../webhooks/support/Services.ts"
import { syncEvents } from "../../webhooks/support/Sync.ts"

const TestLayer = PgWebhookOverview.layer.pipe(
  Layer.provideMerge(services),
  Layer.provideMerge(Layer.mergeAll(PgWebhookStore.layer, PgDashboardAuditLog.layer, senderLayer())),
  Layer.provideMerge(PostgresHarness.layer)
)

const status =
  (code: number): Answer =>
  (_, response) =>
    response.writeHead(code).end()

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("PgWebhookOverview", (it) => {
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
