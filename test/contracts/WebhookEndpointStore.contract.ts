/**
 * The contract of the `WebhookEndpointStore` port, run on the memory twin and on PostgreSQL beside
 * `WebhookDeliveryStore` (through which what an endpoint's changes do to its deliveries is seen):
 * an organization's endpoints stop at its bound, even created at once, endpoints page by id,
 * another organization finds, changes and removes none of them, and a
 * disabled endpoint's deliveries wait until it is enabled, then are due at once.
 */
import { assert, layer as withLayer } from "@effect/vitest"
import { DateTime, Effect, type Layer, Option, Result } from "effect"
import { type WebhookEndpointId, WebhookEndpointLimitReached } from "../../core/webhooks/domain/Webhooks.ts"
import { WebhookDeliveryStore } from "../../core/webhooks/ports/WebhookDeliveryStore.ts"
import { WebhookEndpointStore } from "../../core/webhooks/ports/WebhookEndpointStore.ts"
import { claimAt, deliveries, newEndpoint, newOrg, type WebhookStores } from "./Webhooks.setup.ts"

export const describeWebhookEndpointStoreContract = (name: string, layer: Layer.Layer<WebhookStores, unknown>) =>
  withLayer(layer, { excludeTestServices: true, timeout: 120_000 })(`WebhookEndpointStore contract: ${name}`, (it) => {
    it.effect(
      "an organization's endpoints stop at its bound however many are created at once, and a removal frees one",
      () =>
        Effect.gen(function* () {
          const store = yield* WebhookEndpointStore
          const org = yield* newOrg
          const other = yield* newOrg
          const now = yield* DateTime.now
          const bound = 3
          const attempts = yield* Effect.all(
            Array.from({ length: 8 }, () => Effect.result(newEndpoint(org, now, bound))),
            { concurrency: "unbounded" }
          )
          const made = attempts.filter(Result.isSuccess).map((result) => result.success)
          assert.lengthOf(made, bound)
          for (const refused of attempts.filter(Result.isFailure)) {
            assert.deepStrictEqual(refused.failure, new WebhookEndpointLimitReached({ limit: bound }))
          }
          assert.lengthOf((yield* store.list(org, { limit: 10 })).items, bound)
          // The bound is the organization's: another's endpoints count nothing against it.
          assert.isTrue(Result.isSuccess(yield* Effect.result(newEndpoint(other, now, bound))))
          assert.isTrue(yield* store.remove(org, made[0]!.id))
          assert.isTrue(Result.isSuccess(yield* Effect.result(newEndpoint(org, now, bound))))
          assert.isTrue(Result.isFailure(yield* Effect.result(newEndpoint(org, now, bound))))
        })
    )

    it.effect("pages partition, oldest endpoint first, and another organization finds, changes or removes none", () =>
      Effect.gen(function* () {
        const store = yield* WebhookEndpointStore
        const org = yield* newOrg
        const other = yield* newOrg
        const now = yield* DateTime.now
        const made: Array<WebhookEndpointId> = []
        for (let i = 0; i < 5; i++) made.push((yield* newEndpoint(org, DateTime.add(now, { seconds: i }))).id)
        const listed: Array<string> = []
        let after: string | undefined
        for (;;) {
          const page = yield* store.list(org, { after, limit: 2 })
          listed.push(...page.items.map((e) => e.id))
          if (!page.hasMore) break
          after = page.items.at(-1)!.id
        }
        assert.deepStrictEqual(listed, made)
        const queue = yield* WebhookDeliveryStore
        yield* queue.enqueue(org, made[0]!, deliveries(5, now), { at: now })
        assert.lengthOf((yield* store.list(other, { limit: 10 })).items, 0)
        assert.isTrue(Option.isNone(yield* store.find(other, made[0]!)))
        assert.isTrue(Option.isNone(yield* store.secrets(other, made[0]!)))
        assert.isTrue(Option.isNone(yield* store.update(other, made[0]!, { url: "https://x.example/" }, now)))
        assert.isTrue(Option.isNone(yield* store.rotate(other, made[0]!, "v1:other", now, now)))
        assert.isFalse(yield* store.remove(other, made[0]!))
        const kept = Option.getOrThrow(yield* store.find(org, made[0]!))
        assert.strictEqual(kept.url, "https://hooks.example/in")
        assert.strictEqual(Option.getOrThrow(yield* store.secrets(org, made[0]!)).current, "v1:sealed")
        assert.lengthOf((yield* queue.deliveries(org, made[0]!, { limit: 10 })).items, 5)
      })
    )

    it.effect("a disabled endpoint's deliveries wait, and are due at once when it is enabled", () =>
      Effect.gen(function* () {
        const store = yield* WebhookEndpointStore
        const org = yield* newOrg
        const now = yield* DateTime.now
        const endpoint = yield* newEndpoint(org, now)
        const later = DateTime.add(now, { hours: 3 })
        yield* (yield* WebhookDeliveryStore).enqueue(org, endpoint.id, [{ ...deliveries(1, now)[0]!, dueAt: later }], {
          at: now
        })
        yield* store.update(org, endpoint.id, { enabled: { enabled: false, reason: "manual" } }, now)
        const mine = (claimed: ReadonlyArray<{ readonly delivery: { readonly endpointId: string } }>) =>
          claimed.filter((c) => c.delivery.endpointId === endpoint.id)
        assert.lengthOf(mine(yield* claimAt("w", DateTime.add(now, { hours: 4 }), 5)), 0)
        yield* store.update(org, endpoint.id, { enabled: { enabled: true } }, now)
        assert.lengthOf(mine(yield* claimAt("w", now, 5)), 1)
      })
    )
  })
