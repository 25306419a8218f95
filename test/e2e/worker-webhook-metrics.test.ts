/**
 * A worker's webhook figures on its `/metrics`: after one delivery to a loopback receiver
 * succeeds and one to another fails, the deliveries are counted by what they left (delivered,
 * retrying), the success's lag from the event's commit is timed, and the delivery waiting for
 * its retry is read at the scrape. Never an endpoint or a URL in a label.
 */
import { randomBytes } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as NodeWebhookCrypto from "../../adapters/webhooks/NodeWebhookCrypto.ts"
import { WebhookCrypto } from "../../core/webhooks/ports/WebhookCrypto.ts"
import { WebhookDelivery } from "../../core/webhooks/services/WebhookDelivery.ts"
import { WebhookEndpoints } from "../../core/webhooks/services/WebhookEndpoints.ts"
import { PairStoreHarness } from "../contracts/PairStore.harness.ts"
import { spawnApp } from "../support/AppProcess.ts"
import { freePort } from "../support/ports.ts"
import { rawGet } from "../support/RawHttp.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { receiver } from "../webhooks/support/Receiver.ts"
import { postgresStorage, senderLayer } from "../webhooks/support/Services.ts"
import { syncEvents } from "../webhooks/support/Sync.ts"

// The worker opens the secrets this test seals: one master key for both.
const masterKey = randomBytes(32)

const TestLayer = WebhookEndpoints.layer.pipe(
  Layer.provideMerge(WebhookDelivery.layer),
  Layer.provideMerge(Layer.succeed(WebhookCrypto, NodeWebhookCrypto.make(new Map([[1, masterKey]])))),
  Layer.provideMerge(Layer.merge(postgresStorage, senderLayer()))
)

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("a worker's webhook metrics", (it) => {
  it.effect("count a delivery that succeeded and one that will be retried, the lag and the deliveries waiting", () =>
    Effect.gen(function* () {
      const url = yield* TestDatabase.TestDatabaseUrl
      const endpoints = yield* WebhookEndpoints
      const pair = yield* (yield* PairStoreHarness).addPair({ dueInSeconds: 3600 })
      const healthy = yield* receiver()
      const failing = yield* receiver((_, response) => response.writeHead(500).end())
      yield* endpoints.create(pair.orgId, { url: healthy.url })
      yield* endpoints.create(pair.orgId, { url: failing.url })
      yield* syncEvents(pair, 1)
      const metricsPort = yield* Effect.promise(freePort)
      const worker = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawnApp(
            {
              DATABASE_URL: url,
              DEMO_SEED: "false",
              METRICS_PORT: String(metricsPort),
              WEBHOOK_SECRET_KEYS: `1:${masterKey.toString("base64")}`,
              WEBHOOK_ALLOWED_HOSTS: "127.0.0.1:1-65535",
              WEBHOOK_POLL_MILLISECONDS: "20"
            },
            "worker"
          )
        ),
        (app) =>
          Effect.promise(async () => {
            app.child.kill("SIGTERM")
            await app.exited
          })
      )
      const scraped = yield* Effect.promise(async () => {
        const deadline = Date.now() + 30_000
        let last = ""
        while (Date.now() < deadline) {
          if (worker.child.exitCode !== null) throw new Error(`the worker exited: ${worker.output()}`)
          last = (await rawGet(`http://127.0.0.1:${metricsPort}`, "/metrics").catch(() => undefined))?.body ?? ""
          if (
            /^webhook_deliveries_total\{outcome="delivered"\} 1$/m.test(last) &&
            /^webhook_deliveries_total\{outcome="retrying"\} 1$/m.test(last)
          ) {
            return last
          }
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        throw new Error(`no deliveries in the worker's metrics within 30 s: ${last}\n${worker.output()}`)
      })
      assert.strictEqual(healthy.received.length, 1)
      assert.isAtLeast(failing.received.length, 1)
      assert.notMatch(scraped, /^webhook_deliveries_total\{outcome="(failed|disabled)"\}/m)
      // Timed at the success only: the failure has no lag.
      assert.match(scraped, /^webhook_delivery_lag_seconds_count 1$/m)
      assert.match(scraped, /^webhook_delivery_lag_seconds_bucket\{le="\+Inf"\} 1$/m)
      assert.match(scraped, /^webhook_delivery_lag_seconds_sum \d+(\.\d+)?(e[-+]?\d+)?$/m)
      // The failed delivery waits for its retry.
      assert.match(scraped, /^webhook_deliveries_waiting 1$/m)
      assert.notInclude(scraped, "127.0.0.1:")
      assert.notInclude(scraped, "we_")
    }).pipe(Effect.scoped)
  )
})
