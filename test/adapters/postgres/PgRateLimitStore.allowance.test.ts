/**
 * The local allowance of `PgRateLimitStore` on the test clock: a steady key costs one statement
 * per batch, not one per request; a request refused while the shared bucket is known empty costs
 * none; and a key revoked with no announcement is refused once its allowance lapses (a second),
 * by the statement that refills it.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Tracer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import * as PgRateLimitStore from "../../../adapters/postgres/PgRateLimitStore.ts"
import * as LocalAllowance from "../../../core/access/domain/LocalAllowance.ts"
import { type KeyStep, RateLimitStore } from "../../../core/access/ports/RateLimitStore.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

let statements = 0
const countingTracer = Tracer.make({
  span: (options) => {
    // Every statement the SQL client runs is a client span (named after the database it runs on);
    // the store's own spans are internal.
    if (options.kind === "client") statements++
    return new Tracer.NativeSpan(options)
  }
})

const Store = PgRateLimitStore.layer.pipe(Layer.provideMerge(TestDatabase.layer))

/** A live key of a new organization, and its two limits under `policy`. */
const newKey = (policy: { perSecond: number; burst: number }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Allowance') RETURNING id`
    const [key] = yield* sql<{ id: string }>`INSERT INTO api_keys (org_id, key_hash, display_start)
      VALUES (${org!.id}, sha256(convert_to(${randomUUID()}, 'UTF8')), 'pr_live_allo') RETURNING id`
    const owner = { keyId: key!.id, orgId: org!.id }
    return {
      owner,
      limits: [
        { name: owner.keyId, policy },
        { name: `org:${owner.orgId}`, policy }
      ] as const
    }
  }).pipe(Effect.orDie)

const admitted = (step: KeyStep) => step._tag === "Taken" && step.first.allowed && step.second?.allowed === true

layer(Store, { timeout: 60_000 })("PgRateLimitStore's local allowance", (it) => {
  it.effect("a steady key costs one statement per batch, not one per request", () =>
    Effect.gen(function* () {
      const store = yield* RateLimitStore
      const { owner, limits } = yield* newKey({ perSecond: 1000, burst: 1000 })
      const requests = 400
      statements = 0
      for (let i = 0; i < requests; i++) {
        assert.isTrue(admitted(yield* store.takeForKey(owner, ...limits)), `request ${i}`)
        // 200 requests a second, steadily, for two seconds.
        yield* TestClock.adjust("5 millis")
      }
      // Batches of half a second at 200 a second (100, the cap), a first one of 1, and one check
      // per lapsed second: 5 for 400 requests here, where each request had one of its own.
      assert.isAtMost(statements, 10, `${statements} statements for ${requests} requests`)
    }).pipe(Effect.provide(Layer.succeed(Tracer.Tracer, countingTracer)))
  )

  it.effect("a request refused while the shared bucket is known empty costs no statement", () =>
    Effect.gen(function* () {
      const store = yield* RateLimitStore
      const { owner, limits } = yield* newKey({ perSecond: 0.001, burst: 3 })
      for (let i = 0; i < 3; i++) assert.isTrue(admitted(yield* store.takeForKey(owner, ...limits)))
      const refused = yield* store.takeForKey(owner, ...limits)
      assert.isTrue(refused._tag === "Taken" && !refused.first.allowed)
      statements = 0
      for (let i = 0; i < 50; i++) {
        const again = yield* store.takeForKey(owner, ...limits)
        assert.isTrue(again._tag === "Taken" && !again.first.allowed && again.first.retryAfterSeconds > 900)
      }
      assert.strictEqual(statements, 0)
      // Until the allowance lapses: then the store is asked again (and the key checked), once.
      yield* TestClock.adjust(`${LocalAllowance.lapseMillis} millis`)
      for (let i = 0; i < 50; i++) assert.isFalse(admitted(yield* store.takeForKey(owner, ...limits)))
      assert.strictEqual(statements, 1)
    }).pipe(Effect.provide(Layer.succeed(Tracer.Tracer, countingTracer)))
  )

  it.effect("a key revoked with no announcement is refused when its allowance lapses, within a second", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const store = yield* RateLimitStore
      const { owner, limits } = yield* newKey({ perSecond: 1000, burst: 1000 })
      // Two requests a millisecond apart: the second takes a batch, which leaves tokens here.
      for (let i = 0; i < 2; i++) {
        assert.isTrue(admitted(yield* store.takeForKey(owner, ...limits)))
        yield* TestClock.adjust("1 millis")
      }
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${owner.keyId}`
      // Spent from what the process holds, the store unasked, until the allowance lapses.
      assert.isTrue(admitted(yield* store.takeForKey(owner, ...limits)))
      yield* TestClock.adjust(`${LocalAllowance.lapseMillis} millis`)
      assert.deepStrictEqual(yield* store.takeForKey(owner, ...limits), { _tag: "Revoked" })
      // And it stays refused: nothing of its allowance is left.
      assert.deepStrictEqual(yield* store.takeForKey(owner, ...limits), { _tag: "Revoked" })
    })
  )

  it.effect("requests of one key arriving together share one refill", () =>
    Effect.gen(function* () {
      const store = yield* RateLimitStore
      const { owner, limits } = yield* newKey({ perSecond: 0.001, burst: 10 })
      statements = 0
      const steps = yield* Effect.all(
        Array.from({ length: 30 }, () => store.takeForKey(owner, ...limits)),
        { concurrency: "unbounded" }
      )
      // The burst exactly, each request counted once, with one statement per refill of one token
      // (a tenth of a burst of 10): never one per request waiting.
      assert.strictEqual(steps.filter(admitted).length, 10)
      assert.isAtMost(statements, 11)
    }).pipe(Effect.provide(Layer.succeed(Tracer.Tracer, countingTracer)))
  )
})
