/**
 * The `PairStore` contract's checks of claims and schedules: due pairs are leased the longest
 * overdue first and to one worker at a time, an expired lease is taken over, a worker hands back
 * only its own leases, a failed run is recorded with its retry, and overdue pairs are counted.
 */
import { assert } from "@effect/vitest"
import { DateTime, Duration, Effect } from "effect"
import fc from "fast-check"
import { type FinishedRun, PairStore } from "../../core/receivables/ports/PairStore.ts"
import { noCounts, PairStoreHarness } from "./PairStore.harness.ts"

const finishing = (now: DateTime.Utc): FinishedRun => ({
  counts: noCounts,
  quarantine: [],
  nextSyncAt: DateTime.add(now, { hours: 1 })
})

export const claimLaw = Effect.gen(function* () {
  const store = yield* PairStore
  const harness = yield* PairStoreHarness
  const context = yield* Effect.context<PairStoreHarness | PairStore>()
  const pairs = fc.uniqueArray(fc.record({ dueInSeconds: fc.integer({ min: -900, max: 900 }), paused: fc.boolean() }), {
    selector: (p) => p.dueInSeconds,
    maxLength: 6
  })
  const law = (specs: ReadonlyArray<{ dueInSeconds: number; paused: boolean }>, limit: number) =>
    Effect.gen(function* () {
      yield* harness.reset
      const added = yield* Effect.forEach(specs, (spec) =>
        Effect.map(harness.addPair(spec), (pair) => ({ spec, pair }))
      )
      const due = added
        .filter(({ spec }) => !spec.paused && spec.dueInSeconds <= 0)
        .sort((x, y) => x.spec.dueInSeconds - y.spec.dueInSeconds)
        .map(({ pair }) => pair.id)
      const first = yield* store.claimDue("a", limit, Duration.minutes(10))
      const rest = yield* store.claimDue("b", 100, Duration.minutes(10))
      assert.deepStrictEqual(
        first.map((p) => p.id),
        due.slice(0, limit)
      )
      assert.deepStrictEqual(
        rest.map((p) => p.id),
        due.slice(limit)
      )
      assert.deepStrictEqual(yield* store.claimDue("c", 100, Duration.minutes(10)), [])
    }).pipe(Effect.provideContext(context))
  yield* Effect.promise(() =>
    fc.assert(
      fc.asyncProperty(pairs, fc.integer({ min: 0, max: 4 }), (specs, limit) => Effect.runPromise(law(specs, limit))),
      { numRuns: 15 }
    )
  )
})

export const leases = Effect.gen(function* () {
  const store = yield* PairStore
  const harness = yield* PairStoreHarness
  yield* harness.reset
  const p1 = yield* harness.addPair({ dueInSeconds: -120 })
  const p2 = yield* harness.addPair({ dueInSeconds: -60 })
  const ids = (pairs: ReadonlyArray<{ readonly id: string }>) => pairs.map((p) => p.id)
  assert.deepStrictEqual(ids(yield* store.claimDue("a", 10, Duration.minutes(10))), [p1.id, p2.id])
  yield* store.releaseClaims("b", [p1.id, p2.id])
  assert.deepStrictEqual(ids(yield* store.claimDue("b", 10, Duration.minutes(10))), [])
  assert.strictEqual((yield* harness.stored(p1)).leaseOwner, "a")
  yield* harness.expireLease(p1)
  assert.deepStrictEqual(ids(yield* store.claimDue("b", 10, Duration.minutes(10))), [p1.id])
  yield* store.releaseClaims("a", [p1.id, p2.id])
  assert.deepStrictEqual(ids(yield* store.claimDue("c", 10, Duration.minutes(10))), [p2.id])
  assert.deepStrictEqual([(yield* harness.stored(p1)).leaseOwner, (yield* harness.stored(p2)).leaseOwner], ["b", "c"])
})

export const failures = Effect.gen(function* () {
  const store = yield* PairStore
  const harness = yield* PairStoreHarness
  yield* harness.reset
  const pair = yield* harness.addPair({ dueInSeconds: -60 })
  const now = yield* DateTime.now
  const [claimed] = yield* store.claimDue("w", 1, Duration.minutes(10))
  const retryAt = DateTime.add(now, { seconds: 90 })
  yield* store.recordFailure(claimed!, { worker: "w", startedAt: now, error: "portal timed out", retryAt })
  const failed = yield* harness.stored(pair)
  assert.deepStrictEqual(
    [failed.nextSyncAt, failed.leaseOwner, failed.consecutiveFailures, failed.runs],
    [
      DateTime.toEpochMillis(retryAt),
      null,
      1,
      [{ worker: "w", outcome: "failed", counts: null, error: "portal timed out" }]
    ]
  )
  assert.strictEqual((yield* store.get(pair.id)).consecutiveFailures, 1)
  yield* Effect.scoped(Effect.flatMap(store.session(pair, "w", now), (session) => session.finish(finishing(now))))
  assert.strictEqual((yield* store.get(pair.id)).consecutiveFailures, 0)
  assert.strictEqual((yield* harness.stored(pair)).consecutiveFailures, 0)
})

export const overdue = Effect.gen(function* () {
  const store = yield* PairStore
  const harness = yield* PairStoreHarness
  yield* harness.reset
  yield* harness.addPair({ dueInSeconds: -600 })
  yield* harness.addPair({ dueInSeconds: -30 })
  yield* harness.addPair({ dueInSeconds: 600 })
  yield* harness.addPair({ dueInSeconds: -900, paused: true })
  assert.strictEqual(yield* store.countOverdue(Duration.minutes(1)), 1)
  assert.strictEqual(yield* store.countOverdue(Duration.seconds(1)), 2)
  assert.strictEqual(yield* store.countOverdue(Duration.hours(1)), 0)
})
