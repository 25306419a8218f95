/**
 * The management service's rules on the memory store: what a URL, a description and event types
 * must be; an update that keeps what it does not name; a secret shown once and never stored
 * plain; a delivery retried now; a removed endpoint gone with its deliveries.
 */
import { assert, layer as withLayer } from "@effect/vitest"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { WebhookEndpointStore } from "../../core/webhooks/ports/WebhookEndpointStore.ts"
import { WebhookEndpoints } from "../../core/webhooks/services/WebhookEndpoints.ts"
import { PairStoreHarness } from "../contracts/PairStore.harness.ts"
import { receiver } from "./support/Receiver.ts"
import { memoryStorage, senderLayer, services } from "./support/Services.ts"

const tagOf = (effect: Effect.Effect<unknown, { readonly _tag: string }>) =>
  Effect.map(Effect.flip(effect), (error) => error._tag)

withLayer(services.pipe(Layer.provideMerge(Layer.merge(memoryStorage, senderLayer()))), { excludeTestServices: true })(
  "webhook endpoints",
  (it) => {
    it.effect("a URL must be https at a public address; fields are checked", () =>
      Effect.gen(function* () {
        const endpoints = yield* WebhookEndpoints
        const org = (yield* (yield* PairStoreHarness).addPair({ dueInSeconds: 60 })).orgId
        for (const url of ["http://hooks.example/", "https://10.0.0.1/", "https://[::1]/", "ftp://x/", "nope"]) {
          assert.strictEqual(yield* tagOf(endpoints.create(org, { url })), "WebhookUrlRejected", url)
        }
        const fine = { url: "http://127.0.0.1:9/in" }
        assert.strictEqual(yield* tagOf(endpoints.create(org, { ...fine, eventTypes: [] })), "WebhookEndpointRejected")
        assert.strictEqual(
          yield* tagOf(endpoints.create(org, { ...fine, description: "x".repeat(501) })),
          "WebhookEndpointRejected"
        )
        assert.strictEqual(
          yield* tagOf(endpoints.create(org, { ...fine, description: "a\u0007b" })),
          "WebhookEndpointRejected"
        )
        const { endpoint } = yield* endpoints.create(org, {
          ...fine,
          eventTypes: ["receivable.updated", "receivable.updated"]
        })
        assert.deepStrictEqual(endpoint.eventTypes, ["receivable.updated"])
        assert.strictEqual(
          yield* tagOf(endpoints.update(org, endpoint.id, { url: "https://192.168.0.1/" })),
          "WebhookUrlRejected"
        )
        const described = yield* endpoints.update(org, endpoint.id, { description: "Ledger – Zürich" })
        assert.strictEqual(described.description, "Ledger – Zürich")
        assert.deepStrictEqual(described.eventTypes, ["receivable.updated"])
        assert.strictEqual(described.url, fine.url)
        const off = yield* endpoints.update(org, endpoint.id, { enabled: false })
        assert.strictEqual(off.disabledReason, "manual")
        assert.strictEqual(yield* tagOf(endpoints.test(org, endpoint.id)), "WebhookEndpointDisabled")
        assert.strictEqual(yield* tagOf(endpoints.get(org, "we_not-an-id")), "WebhookEndpointNotFound")
      })
    )

    it.effect("the secret is shown once and stored only sealed", () =>
      Effect.gen(function* () {
        const endpoints = yield* WebhookEndpoints
        const store = yield* WebhookEndpointStore
        const org = (yield* (yield* PairStoreHarness).addPair({ dueInSeconds: 60 })).orgId
        const { endpoint, secret } = yield* endpoints.create(org, { url: "http://127.0.0.1:9/in" })
        assert.notInclude(String(secret), Redacted.value(secret))
        const sealed = Option.getOrThrow(yield* store.secrets(org, endpoint.id))
        assert.notInclude(sealed.current, Redacted.value(secret).slice("whsec_".length))
        assert.notInclude(JSON.stringify(endpoint), Redacted.value(secret).slice("whsec_".length))
      })
    )

    it.effect("a delivery is retried now on request; a removed endpoint is gone with its deliveries", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const endpoints = yield* WebhookEndpoints
          const org = (yield* (yield* PairStoreHarness).addPair({ dueInSeconds: 60 })).orgId
          const hooks = yield* receiver((_, response) => response.writeHead(503).end())
          const { endpoint } = yield* endpoints.create(org, { url: hooks.url })
          const tested = yield* endpoints.test(org, endpoint.id)
          assert.strictEqual(tested.delivery.status, "pending")
          // Due in about 5 s by the schedule; a retry makes it due now.
          const retried = yield* endpoints.retry(org, tested.delivery.id)
          assert.strictEqual(retried.status, "pending")
          assert.isTrue(DateTime.isLessThanOrEqualTo(retried.nextAttemptAt!, yield* DateTime.now))
          assert.isTrue(DateTime.isGreaterThan(tested.delivery.nextAttemptAt!, yield* DateTime.now))
          const detail = yield* endpoints.delivery(org, tested.delivery.id)
          assert.lengthOf(detail.attempts, 1)
          assert.strictEqual(detail.attempts[0]!.responseStatus, 503)
          yield* endpoints.remove(org, endpoint.id)
          assert.strictEqual(yield* tagOf(endpoints.get(org, endpoint.id)), "WebhookEndpointNotFound")
          assert.strictEqual(yield* tagOf(endpoints.delivery(org, tested.delivery.id)), "WebhookDeliveryNotFound")
          assert.strictEqual(yield* tagOf(endpoints.retry(org, tested.delivery.id)), "WebhookDeliveryNotFound")
        })
      )
    )
  }
)
