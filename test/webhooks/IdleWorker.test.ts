/**
 * An idle worker's cost: with nothing due, its slots make one claim per poll interval between
 * them, not one each (16 slots polling each would be 16 claims a round on every worker).
 */
import { assert, layer as withLayer } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as MemoryWebhookDeliveryStore from "../../core/webhooks/memory/WebhookDeliveryStore.ts"
import { WebhookDeliveryStore } from "../../core/webhooks/ports/WebhookDeliveryStore.ts"
import { WebhookDelivery } from "../../core/webhooks/services/WebhookDelivery.ts"
import { memoryStorage, senderLayer, services, workerOptions } from "./support/Services.ts"

let claims = 0

/** The memory store, counting its claims. */
const counting = Layer.effect(
  WebhookDeliveryStore,
  Effect.gen(function* () {
    const store = yield* WebhookDeliveryStore
    return WebhookDeliveryStore.of({
      ...store,
      claim: (request) =>
        Effect.suspend(() => {
          claims += 1
          return store.claim(request)
        })
    })
  })
).pipe(Layer.provide(MemoryWebhookDeliveryStore.layerMemory), Layer.provideMerge(memoryStorage))

withLayer(services.pipe(Layer.provideMerge(Layer.merge(counting, senderLayer()))))("an idle webhook worker", (it) => {
  it.effect("claims once per poll interval, whatever its number of slots", () =>
    Effect.gen(function* () {
      const worker = yield* WebhookDelivery
      const running = yield* Effect.forkChild(
        worker.run(workerOptions({ concurrency: 16, pollInterval: Duration.seconds(1) }))
      )
      for (let second = 0; second < 10; second++) yield* TestClock.adjust(Duration.seconds(1))
      yield* Fiber.interrupt(running)
      assert.isAtLeast(claims, 5)
      assert.isAtMost(claims, 12)
    })
  )
})
