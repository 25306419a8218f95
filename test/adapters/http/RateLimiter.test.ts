/**
 * The rate limiter over its store: an organization's limit and its keys' are apart in one store,
 * and while the store cannot be reached the process limits on its own rather than refusing or
 * failing every request.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { makeOver, RateLimiter } from "../../../adapters/http/pipeline/RateLimiter.ts"
import { layerOwnState } from "../../../core/access/memory/RateLimitStore.ts"
import { RateLimitStore, RateLimitStoreUnavailable } from "../../../core/access/ports/RateLimitStore.ts"

const limits = { perSecond: 0.001, burst: 3 }

const unreachable = Layer.succeed(
  RateLimitStore,
  RateLimitStore.of({
    take: () => Effect.fail(new RateLimitStoreUnavailable({ message: "connection refused" })),
    takeForKey: () => Effect.fail(new RateLimitStoreUnavailable({ message: "connection refused" }))
  })
)

const passed = (limit: string, times: number) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter
    const decisions = yield* Effect.forEach(Array.from({ length: times }), () => limiter.take(limit))
    return decisions.filter((d) => d.allowed).length
  })

describe("RateLimiter", () => {
  it.effect("with its store unreachable, limits in this process: a key still gets its burst, no more", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* passed("key-1", 10), 3)
      assert.strictEqual(yield* passed("key-2", 1), 1)
    }).pipe(Effect.provide(Layer.effect(RateLimiter, makeOver(limits, limits)).pipe(Layer.provide(unreachable))))
  )

  it.effect("an organization's limit does not spend the limit of a key named like it", () =>
    Effect.gen(function* () {
      const limiter = yield* RateLimiter
      for (let i = 0; i < 3; i++) yield* limiter.takeKeyAndOrganization(`key-${i}`, "same-id", limits)
      const refused = yield* limiter.takeKeyAndOrganization("key-3", "same-id", limits)
      assert.deepStrictEqual([refused.key.allowed, refused.organization?.allowed], [true, false])
      assert.strictEqual(yield* passed("same-id", 3), 3)
    }).pipe(Effect.provide(Layer.effect(RateLimiter, makeOver(limits, limits)).pipe(Layer.provide(layerOwnState))))
  )

  it.effect("with its store unreachable, a key and its organization are still limited in this process", () =>
    Effect.gen(function* () {
      const limiter = yield* RateLimiter
      const first = yield* limiter.takeKeyAndOrganization("key-a", "org-a", { perSecond: 0.001, burst: 1 })
      const second = yield* limiter.takeKeyAndOrganization("key-b", "org-a", { perSecond: 0.001, burst: 1 })
      assert.deepStrictEqual(
        [first.organization?.allowed, second.key.allowed, second.organization?.allowed],
        [true, true, false]
      )
    }).pipe(Effect.provide(Layer.effect(RateLimiter, makeOver(limits, limits)).pipe(Layer.provide(unreachable))))
  )
})
