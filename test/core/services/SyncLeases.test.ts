/**
 * The leases of a sync in two phases, on the memory twin in virtual time: a run slower than its
 * lease keeps it by its heartbeat and applies; a run whose lease ran out while it fetched applies
 * nothing and is recorded as failed, and what its connector read is not kept as read; a scheduler keeps the claims it holds for as long as their
 * syncs take, so no other worker takes a pair being synced.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { MemoryPairs } from "../../../core/receivables/memory/PairStore.ts"
import * as Scheduler from "../../../core/receivables/services/Scheduler.ts"
import { defaultLease, SyncEngine } from "../../../core/receivables/services/SyncEngine.ts"
import { addPair, contents, document, engineLayer } from "./SyncKit.ts"

// A portal answering after three leases' time.
const slow = { documents: [document("a"), document("b")], delaySeconds: 3 * Duration.toSeconds(defaultLease) + 5 }

describe("sync leases", () => {
  it.effect("a run slower than its lease keeps it by its heartbeat, and applies", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const pair = yield* addPair(slow)
      const fiber = yield* Effect.forkChild(engine.runPair(pair, "w"))
      yield* TestClock.adjust(Duration.seconds(slow.delaySeconds + 1))
      const outcome = yield* Fiber.join(fiber)
      assert.strictEqual(outcome._tag, "Succeeded")
      assert.strictEqual((yield* contents(pair)).receivables.length, 2)
    }).pipe(Effect.provide(engineLayer()))
  )

  it.effect("a run whose lease ran out while it fetched applies nothing, and is recorded as failed", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const memory = yield* MemoryPairs
      const pair = yield* addPair({ documents: [document("a")], delaySeconds: 5 })
      const fiber = yield* Effect.forkChild(engine.runPair(pair, "stalled"))
      yield* TestClock.adjust("1 second")
      // As if the worker had stalled past its lease: no renewal reached the store in time.
      yield* memory.expireRuns
      yield* TestClock.adjust("10 seconds")
      const outcome = yield* Fiber.join(fiber)
      assert.strictEqual(outcome._tag, "Failed")
      assert.include(outcome._tag === "Failed" ? outcome.error : "", "lease ran out")
      const stored = yield* contents(pair)
      assert.deepStrictEqual(
        [stored.receivables.length, stored.events.length, stored.runs.map((run) => run.outcome)],
        [0, 0, ["failed"]]
      )
      assert.deepStrictEqual(yield* memory.runsInFlight, { runs: 0, staged: 0 })
    }).pipe(Effect.provide(engineLayer()))
  )

  it.effect("regression: what a connector read is kept as read only once its fetch is applied", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const memory = yield* MemoryPairs
      const remembered: Array<string> = []
      const pair = yield* addPair({ documents: [document("a")], delaySeconds: 5, remembered })
      const fiber = yield* Effect.forkChild(engine.runPair(pair, "stalled"))
      yield* TestClock.adjust("1 second")
      yield* memory.expireRuns
      yield* TestClock.adjust("10 seconds")
      // The fetch was read to its end, but its apply failed: an inbox must read those files again.
      assert.strictEqual((yield* Fiber.join(fiber))._tag, "Failed")
      assert.deepStrictEqual(remembered, [])
      const applied = yield* Effect.forkChild(engine.runPair(pair, "w"))
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual((yield* Fiber.join(applied))._tag, "Succeeded")
      assert.deepStrictEqual(remembered, ["fetch"])
    }).pipe(Effect.provide(engineLayer()))
  )

  it.effect("a scheduler keeps the claims of its pairs while they sync: no other worker takes them", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const pair = yield* addPair(slow, { dueIn: "-1 minute" })
      const fiber = yield* Effect.forkChild(Scheduler.drain({ worker: "first", concurrency: 1 }))
      yield* TestClock.adjust(Duration.times(defaultLease, 2))
      assert.deepStrictEqual(yield* engine.claimDue("second", 10), [])
      yield* TestClock.adjust(Duration.seconds(slow.delaySeconds))
      yield* Fiber.join(fiber)
      const stored = yield* contents(pair)
      assert.deepStrictEqual(
        stored.runs.map((run) => [run.worker, run.outcome]),
        [["first", "succeeded"]]
      )
    }).pipe(Effect.provide(engineLayer()))
  )
})
