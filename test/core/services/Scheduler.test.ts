/**
 * The scheduler on the memory twin of `PairStore`, in virtual time: it syncs the pairs that are
 * due and only those, a slow portal holds up its own slot and no other, a scheduler that stops
 * hands back the leases of the pairs it has not finished, and `drain` returns once nothing is due.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import type { Pair } from "../../../core/receivables/ports/PairStore.ts"
import * as Scheduler from "../../../core/receivables/services/Scheduler.ts"
import { type RunOutcome, SyncEngine } from "../../../core/receivables/services/SyncEngine.ts"
import { addPair, contents, document, engineLayer } from "./SyncKit.ts"

const quick = { documents: [document("a"), document("b")] }

// Lets the scheduler's fibers run as far as they can without time passing.
const settle = Effect.gen(function* () {
  for (let i = 0; i < 200; i++) yield* Effect.yieldNow
})

const runsOf = (pair: Pair) => Effect.map(contents(pair), (stored) => stored.runs.map((run) => run.outcome))

/** A slow pair due first, then `others` quick ones; the scheduler `worker` runs them in `concurrency` slots. */
const slowFirst = (others: number, worker: string, concurrency: number) =>
  Effect.gen(function* () {
    const slow = yield* addPair({ ...quick, delaySeconds: 3 }, { dueIn: "-2 minutes" })
    const quickPairs = yield* Effect.forEach(Array.from({ length: others }), () =>
      addPair(quick, { dueIn: "-1 minute" })
    )
    const fiber = yield* Effect.forkChild(Scheduler.run({ worker, concurrency, pollInterval: Duration.seconds(1) }))
    yield* settle
    return { slow, quickPairs, fiber }
  })

describe("Scheduler", () => {
  it.effect("syncs the pairs that are due, and the others when their time comes; paused ones never", () =>
    Effect.gen(function* () {
      const due = yield* Effect.forEach([1, 2, 3], () => addPair(quick, { dueIn: "-1 minute" }))
      const later = yield* addPair(quick, { dueIn: "30 minutes" })
      const paused = yield* addPair(quick, { dueIn: "-1 hour", paused: true })
      const fiber = yield* Effect.forkChild(
        Scheduler.run({ worker: "scheduler", concurrency: 2, pollInterval: Duration.seconds(1) })
      )
      yield* settle
      for (const pair of due) {
        const stored = yield* contents(pair)
        assert.deepStrictEqual(
          [stored.runs.map((run) => run.outcome), stored.receivables.length, stored.pair.lease],
          [["succeeded"], 2, undefined]
        )
        const ahead = DateTime.toEpochMillis(stored.pair.nextSyncAt!) - DateTime.toEpochMillis(yield* DateTime.now)
        assert.isTrue(ahead >= 54 * 60_000 && ahead <= 66 * 60_000, `next sync in ${ahead} ms`)
      }
      assert.deepStrictEqual(yield* runsOf(later), [])
      for (let i = 0; i < 31; i++) yield* TestClock.adjust("1 minute")
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(yield* runsOf(later), ["succeeded"])
      assert.deepStrictEqual(yield* runsOf(paused), [])
    }).pipe(Effect.provide(engineLayer()))
  )

  it.effect("a slow portal holds up its own slot only: the other pairs sync meanwhile", () =>
    Effect.gen(function* () {
      const { slow, quickPairs, fiber } = yield* slowFirst(4, "slots", 2)
      for (const pair of quickPairs) assert.deepStrictEqual(yield* runsOf(pair), ["succeeded"])
      assert.deepStrictEqual(yield* runsOf(slow), [])
      yield* TestClock.adjust("3 seconds")
      yield* settle
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(yield* runsOf(slow), ["succeeded"])
    }).pipe(Effect.provide(engineLayer()))
  )

  it.effect("a scheduler that stops hands back the leases of the pairs it has not finished", () =>
    Effect.gen(function* () {
      // One slot: the slow pair runs, the others wait in the scheduler's claimed batch.
      const { slow, quickPairs, fiber } = yield* slowFirst(2, "stopping", 1)
      const pairs = [slow, ...quickPairs]
      for (const pair of pairs) assert.strictEqual((yield* contents(pair)).pair.lease?.owner, "stopping")
      yield* Fiber.interrupt(fiber)
      for (const pair of pairs) assert.isUndefined((yield* contents(pair)).pair.lease)
      const next = yield* (yield* SyncEngine).claimDue("next-worker", 10)
      assert.deepStrictEqual(next.map((pair) => pair.id).sort(), pairs.map((pair) => pair.id).sort())
      assert.deepStrictEqual(yield* runsOf(slow), [])
    }).pipe(Effect.provide(engineLayer()))
  )

  it.effect("drain syncs what is due, tells of every run, and returns", () =>
    Effect.gen(function* () {
      const due = yield* Effect.forEach([1, 2, 3, 4, 5], () => addPair(quick, { dueIn: "-1 minute" }))
      const failing = yield* addPair({ failure: { message: "down", retryable: true } }, { dueIn: "-1 minute" })
      const later = yield* addPair(quick, { dueIn: "1 hour" })
      const outcomes: Array<RunOutcome> = []
      yield* Scheduler.drain({
        worker: "drain",
        concurrency: 2,
        onOutcome: (outcome) => Effect.sync(() => outcomes.push(outcome))
      })
      assert.deepStrictEqual(
        outcomes.map((o) => [o.integrationId, o._tag]).sort(),
        [...due.map((pair) => [pair.id, "Succeeded"]), [failing.id, "Failed"]].sort()
      )
      assert.deepStrictEqual(yield* runsOf(later), [])
    }).pipe(Effect.provide(engineLayer()))
  )
})
