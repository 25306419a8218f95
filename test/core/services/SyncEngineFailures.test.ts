/**
 * What the sync engine does when a sync fails, on the memory twin of `PairStore` in virtual time:
 * the pair stays as it was, whether the portal fails at once or half-way through its answer; the
 * retry backs off, or waits for the portal's `Retry-After` up to a cap, or for the pair's interval
 * when retrying cannot help; a deadline cuts a hanging portal off; and a failed run is recorded
 * once the store answers again.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, DateTime, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { states as memoryStates } from "../../../core/memory/MemoryStorage.ts"
import { layerMemory } from "../../../core/receivables/memory/PairStore.ts"
import { PairStore, StoreUnavailable } from "../../../core/receivables/ports/PairStore.ts"
import { SyncEngine } from "../../../core/receivables/services/SyncEngine.ts"
import { addPair, contents, document, engineLayer, rescript } from "./SyncKit.ts"

const secondsFromNow = (at: DateTime.Utc) =>
  Effect.map(DateTime.now, (now) => (DateTime.toEpochMillis(at) - DateTime.toEpochMillis(now)) / 1000)

describe("SyncEngine, when a sync fails", () => {
  it.effect("a connector failure leaves the pair as it was and schedules a backed-off retry", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const pair = yield* addPair({ documents: [document("a")] })
      yield* engine.runPair(pair, "w")
      const before = yield* contents(pair)
      const failing = yield* rescript(pair, {
        documents: [document("a", { portalStatus: "Paid" }), document("b")],
        failure: { message: "portal timed out", retryable: true }
      })
      const failed = yield* engine.runPair(failing, "w")
      assert.strictEqual(failed._tag, "Failed")
      const after = yield* contents(pair)
      assert.deepStrictEqual(
        [after.receivables, after.history, after.events],
        [before.receivables, before.history, before.events]
      )
      assert.deepStrictEqual(
        [after.pair.integration.consecutiveFailures, after.pair.lastError],
        [1, "portal timed out"]
      )
      const delay = yield* secondsFromNow(after.pair.nextSyncAt!)
      assert.isTrue(delay >= 27 && delay <= 33, `retry after ${delay} s`)

      const recovered = yield* engine.runPair(yield* rescript(pair, { documents: [document("b")] }), "w")
      assert.strictEqual(recovered._tag, "Succeeded")
      assert.strictEqual((yield* contents(pair)).pair.integration.consecutiveFailures, 0)
    }).pipe(Effect.provide(engineLayer()))
  )

  it.effect("a portal failing half-way through its answer leaves the pair as it was", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const documents = ["a", "b", "c", "d", "e"].map((key) => document(key))
      const pair = yield* addPair({
        documents,
        failure: { message: "connection reset", retryable: true },
        thenFail: true
      })
      const before = yield* contents(pair)
      assert.strictEqual((yield* engine.runPair(pair, "w"))._tag, "Failed")
      const after = yield* contents(pair)
      assert.deepStrictEqual(
        [after.receivables, after.events, after.runs.map((r) => r.outcome)],
        [before.receivables, before.events, ["failed"]]
      )
    }).pipe(Effect.provide(engineLayer({ chunkSize: 2 })))
  )

  it.effect("a portal's Retry-After is honoured: the retry is never sooner than it asked", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const failure = { message: "rate limited (429)", retryable: true, retryAfterSeconds: 900 }
      const pair = yield* addPair({ failure })
      yield* engine.runPair(pair, "w")
      // The first backoff would be about 30 s; the portal asked for 15 minutes.
      assert.strictEqual(yield* secondsFromNow((yield* contents(pair)).pair.nextSyncAt!), 900)
    }).pipe(Effect.provide(engineLayer()))
  )

  it.effect("a portal's Retry-After is honoured up to 24 hours, and the run says it was capped", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const failure = { message: "rate limited (429)", retryable: true, retryAfterSeconds: 999_999_999 }
      const pair = yield* addPair({ failure })
      const outcome = yield* engine.runPair(pair, "w")
      const { pair: stored } = yield* contents(pair)
      assert.strictEqual(yield* secondsFromNow(stored.nextSyncAt!), 86_400)
      assert.match(stored.lastError ?? "", /asked to wait 999999999 s; waiting 1d/)
      assert.strictEqual(outcome._tag === "Failed" && outcome.error, stored.lastError)
    }).pipe(Effect.provide(engineLayer()))
  )

  it.effect("a sync past its pair's deadline fails and hands back its lease; the pair is as it was", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const pair = yield* addPair({ hang: true }, { dueIn: "-1 minute", deadline: "300 millis" })
      const [claimed] = yield* engine.claimDue("deadline-worker", 1)
      assert.strictEqual(claimed?.id, pair.id)
      const fiber = yield* Effect.forkChild(engine.runPair(claimed!, "deadline-worker"))
      yield* TestClock.adjust("299 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const outcome = yield* Fiber.join(fiber)
      assert.match(outcome._tag === "Failed" ? outcome.error : "", /did not finish within its deadline of 300ms/)
      const after = yield* contents(pair)
      assert.deepStrictEqual(
        [after.pair.lease, after.pair.lastOutcome, after.receivables.length],
        [undefined, "failed", 0]
      )
    }).pipe(Effect.provide(engineLayer()))
  )

  it.effect(
    "a failed run cut off by a store outage is recorded once the store answers again, its lease handed back",
    () => {
      let outage = 2
      // The memory store as an outage leaves it: the next `outage` attempts to record a failure die.
      const unreliable = Layer.effectContext(
        Effect.gen(function* () {
          const context = yield* Layer.build(layerMemory.pipe(Layer.provide(memoryStates)))
          const store = Context.get(context, PairStore)
          return Context.add(context, PairStore, {
            ...store,
            recordFailure: (integration, run) =>
              Effect.suspend(() => {
                if (outage === 0) return store.recordFailure(integration, run)
                outage -= 1
                return Effect.fail(new StoreUnavailable({ message: "connect ECONNREFUSED 127.0.0.1:5432" }))
              })
          })
        })
      )
      return Effect.gen(function* () {
        const engine = yield* SyncEngine
        const pair = yield* addPair(
          { failure: { message: "portal timed out", retryable: true } },
          { dueIn: "-1 minute" }
        )
        const [claimed] = yield* engine.claimDue("outage-worker", 1)
        const fiber = yield* Effect.forkChild(engine.runPair(claimed!, "outage-worker"))
        // Backing off 0.5 s, then 1 s, before the third attempt.
        for (let i = 0; i < 20 && fiber.pollUnsafe() === undefined; i++) yield* TestClock.adjust("100 millis")
        const outcome = yield* Fiber.join(fiber)
        assert.strictEqual(outage, 0)
        assert.strictEqual(outcome._tag, "Failed")
        const after = yield* contents(pair)
        assert.deepStrictEqual([after.pair.lease, after.runs.map((r) => r.outcome)], [undefined, ["failed"]])
        // The first retry's backoff (30 s with jitter), not the ten minutes of an expiring lease.
        assert.isBelow(yield* secondsFromNow(after.pair.nextSyncAt!), 40)
      }).pipe(Effect.provide(engineLayer({}, unreliable)))
    }
  )

  it.effect("a store that refuses to record a failure for another reason than an outage is not asked again", () => {
    let attempts = 0
    const refusing = Layer.effectContext(
      Effect.gen(function* () {
        const context = yield* Layer.build(layerMemory.pipe(Layer.provide(memoryStates)))
        const store = Context.get(context, PairStore)
        return Context.add(context, PairStore, {
          ...store,
          recordFailure: () =>
            Effect.suspend(() => {
              attempts += 1
              return Effect.die(new Error("new row violates check constraint"))
            })
        })
      })
    )
    return Effect.gen(function* () {
      const engine = yield* SyncEngine
      const pair = yield* addPair({ failure: { message: "portal timed out", retryable: true } })
      // Under TestClock a retry would wait for ever: the run must end without one.
      const outcome = yield* engine.runPair(pair, "w")
      assert.strictEqual(outcome._tag, "Failed")
      assert.strictEqual(attempts, 1)
    }).pipe(Effect.provide(engineLayer({}, refusing)))
  })

  it.effect("a permanent failure, or a connector this process lacks, waits for the pair's interval", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const misconfigured = yield* addPair({ failure: { message: "the configuration is not valid", retryable: false } })
      const unknown = { ...(yield* addPair({})), connector: "nowhere" }
      for (const pair of [misconfigured, unknown]) {
        const outcome = yield* engine.runPair(pair, "w")
        assert.strictEqual(outcome._tag, "Failed")
        assert.isAbove(yield* secondsFromNow((yield* contents(pair)).pair.nextSyncAt!), 50 * 60)
      }
      assert.match((yield* contents(unknown)).pair.lastError ?? "", /no connector of kind "nowhere"/)
    }).pipe(Effect.provide(engineLayer()))
  )
})
