/**
 * A worker process (`node app/main.ts worker`) killed with SIGKILL while attempts are in flight
 * loses none of them: their leases end, and another worker delivers them (at least once).
 */
import { randomBytes } from "node:crypto"
import { assert, layer as withLayer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import * as NodeWebhookCrypto from "../../adapters/webhooks/NodeWebhookCrypto.ts"
import { WebhookCrypto } from "../../core/webhooks/ports/WebhookCrypto.ts"
import { WebhookDelivery } from "../../core/webhooks/services/WebhookDelivery.ts"
import { WebhookEndpoints } from "../../core/webhooks/services/WebhookEndpoints.ts"
import { PairStoreHarness } from "../contracts/PairStore.harness.ts"
import { spawnApp } from "../support/AppProcess.ts"
import { eventually } from "../support/Eventually.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { deliverDue } from "./support/Deliver.ts"
import { ok, receiver } from "./support/Receiver.ts"
import { postgresStorage, senderLayer, workerOptions } from "./support/Services.ts"
import { syncEvents, tagOf } from "./support/Sync.ts"

const masterKey = randomBytes(32)

const services = WebhookEndpoints.layer.pipe(
  Layer.provideMerge(WebhookDelivery.layer),
  Layer.provideMerge(Layer.succeed(WebhookCrypto, NodeWebhookCrypto.make(new Map([[1, masterKey]])))),
  Layer.provideMerge(Layer.merge(postgresStorage, senderLayer()))
)

withLayer(services, { timeout: 120_000, excludeTestServices: true })("a killed webhook worker", (it) => {
  it.effect("loses no delivery it had in flight", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const harness = yield* PairStoreHarness
        const endpoints = yield* WebhookEndpoints
        const sql = yield* SqlClient.SqlClient
        const url = yield* TestDatabase.TestDatabaseUrl
        // Holds every request unanswered until told otherwise.
        const hooks = yield* receiver(() => {})
        const pair = yield* harness.addPair({ dueInSeconds: 3600 })
        const { endpoint } = yield* endpoints.create(pair.orgId, { url: hooks.url })
        const tags = yield* syncEvents(pair, 6)
        const app = spawnApp(
          {
            DATABASE_URL: url,
            WEBHOOK_SECRET_KEYS: `1:${masterKey.toString("base64")}`,
            WEBHOOK_ALLOWED_HOSTS: "127.0.0.1:1-65535",
            WEBHOOK_ENDPOINT_CONCURRENCY: "4",
            WEBHOOK_POLL_MILLISECONDS: "50"
          },
          "worker"
        )
        yield* eventually(
          "the worker's attempts in flight",
          Effect.sync(() => hooks.open() === 4),
          {
            attempts: 600,
            interval: Duration.millis(50)
          }
        ).pipe(Effect.onError(() => Effect.sync(() => console.error(app.output()))))
        app.child.kill("SIGKILL")
        yield* Effect.promise(() => app.exited)
        hooks.answer = ok
        const [sending] = yield* sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'sending'`
        assert.strictEqual(sending!.n, 4)
        // Past the dead worker's leases (one minute), another worker delivers everything.
        yield* Effect.andThen(
          TestClock.setTime(Date.now() + Duration.toMillis(Duration.minutes(2))),
          deliverDue(pair.orgId, endpoint.id, workerOptions({ worker: "survivor" }))
        ).pipe(Effect.provide(TestClock.layer()))
        const delivered = new Set(hooks.received.map((r) => tagOf(r.body)))
        assert.deepStrictEqual([...delivered].sort(), [...tags].sort())
        const [left] = yield* sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'succeeded'`
        assert.strictEqual(left!.n, 0)
      })
    )
  )
})
