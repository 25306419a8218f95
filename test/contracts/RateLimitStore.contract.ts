/**
 * The contract of the `RateLimitStore` port, one suite run against every implementation (the
 * in-memory twin, PostgreSQL): `describeRateLimitStore(name, layer)`. The rates are slow enough
 * (one request per thousand seconds) that nothing refills while a case runs, so the cases hold
 * whichever clock the store reads. Each case names limits of its own.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import fc from "fast-check"
import { type KeyStep, RateLimitStore } from "../../core/access/ports/RateLimitStore.ts"

const slow = (burst: number) => ({ perSecond: 0.001, burst })

const forAll = <T>(arbitrary: fc.Arbitrary<T>, body: (value: T) => Effect.Effect<void, unknown, RateLimitStore>) =>
  Effect.gen(function* () {
    const run = Effect.runPromiseWith(yield* Effect.context<RateLimitStore>())
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(arbitrary, (value) => run(body(value))),
        { numRuns: 15 }
      )
    )
  })

export const describeRateLimitStore = (name: string, storage: Layer.Layer<RateLimitStore, unknown>) =>
  layer(storage, { timeout: 60_000 })(`RateLimitStore contract (${name})`, (it) => {
    it.effect("a limit never seen passes its burst, counting down, then refuses until it refills", () =>
      forAll(fc.integer({ min: 1, max: 30 }), (burst) =>
        Effect.gen(function* () {
          const store = yield* RateLimitStore
          const limit = `key:${randomUUID()}`
          for (let i = 1; i <= burst; i++) {
            const decision = yield* store.take(limit, slow(burst))
            assert.deepStrictEqual([decision.allowed, decision.remaining], [true, burst - i])
          }
          const refused = yield* store.take(limit, slow(burst))
          assert.isFalse(refused.allowed)
          assert.strictEqual(refused.remaining, 0)
          // One request refills in 1,000 s: the wait is about that, whatever the store's clock says.
          assert.closeTo(refused.retryAfterSeconds, 1000, 2)
          assert.closeTo(refused.resetSeconds, burst * 1000, 2)
        })
      )
    )

    it.effect("limits by different names count apart, each under the policy given with it", () =>
      Effect.gen(function* () {
        const store = yield* RateLimitStore
        const [one, two] = [`org:${randomUUID()}`, `org:${randomUUID()}`]
        assert.isTrue((yield* store.take(one, slow(1))).allowed)
        assert.isFalse((yield* store.take(one, slow(1))).allowed)
        const other = yield* store.take(two, slow(3))
        assert.deepStrictEqual([other.allowed, other.remaining], [true, 2])
        // An operator's larger limit for the same name applies from the next request on.
        assert.isTrue((yield* store.take(one, slow(2))).allowed)
      })
    )

    it.effect("requests made at once on one limit pass exactly its burst", () =>
      Effect.gen(function* () {
        const store = yield* RateLimitStore
        const limit = `key:${randomUUID()}`
        const decisions = yield* Effect.all(
          Array.from({ length: 40 }, () => store.take(limit, slow(10))),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(decisions.filter((d) => d.allowed).length, 10)
        // Each passed request saw a different remaining count: none was counted twice.
        assert.deepStrictEqual(
          decisions
            .filter((d) => d.allowed)
            .map((d) => d.remaining)
            .sort((a, b) => a - b),
          [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
        )
      })
    )

    it.effect("a key's two limits in one step: the second is taken only while the first lets requests through", () =>
      Effect.gen(function* () {
        const store = yield* RateLimitStore
        // A key no store has found revoked: its limits are taken.
        const owner = { keyId: randomUUID(), orgId: randomUUID() }
        const key = { name: owner.keyId, policy: slow(2) }
        const organization = { name: `org:${owner.orgId}`, policy: slow(3) }
        const taken = (step: KeyStep) => {
          assert.strictEqual(step._tag, "Taken")
          return step as Extract<KeyStep, { _tag: "Taken" }>
        }
        const both = yield* Effect.forEach([1, 2, 3], () =>
          Effect.map(store.takeForKey(owner, key, organization), taken)
        )
        assert.deepStrictEqual(
          both.map(({ first, second }) => [first.allowed, first.remaining, second?.allowed, second?.remaining]),
          [
            [true, 1, true, 2],
            [true, 0, true, 1],
            [false, 0, undefined, undefined]
          ]
        )
        // The refused third spent nothing of the organization's limit: one place is left.
        const another = { keyId: randomUUID(), orgId: owner.orgId }
        const other = taken(yield* store.takeForKey(another, { name: another.keyId, policy: slow(2) }, organization))
        assert.deepStrictEqual([other.second?.allowed, other.second?.remaining], [true, 0])
      })
    )
  })
