/**
 * A pair's schedule against an operator's hands, on the memory twins in virtual time: pausing and
 * resuming brings no sync forward (not past the interval, the failure backoff or a portal's
 * `Retry-After`), and "sync now" is refused within `MANUAL_SYNC_MIN_SECONDS` of the last run and
 * before the portal's `Retry-After`, saying when it may run. The rule's law is a property.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Deferred, Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { states as memoryStates } from "../../../core/memory/MemoryStorage.ts"
import * as MemoryDirectoryStore from "../../../core/receivables/memory/DirectoryStore.ts"
import { layerMemory } from "../../../core/receivables/memory/PairStore.ts"
import { DirectoryStore } from "../../../core/receivables/ports/DirectoryStore.ts"
import type { Pair } from "../../../core/receivables/ports/PairStore.ts"
import { ManualSync, manualSyncNotBefore } from "../../../core/receivables/services/ManualSync.ts"
import * as Scheduler from "../../../core/receivables/services/Scheduler.ts"
import { addPair, contents, document, engineLayer, type Script } from "./SyncKit.ts"

const minGap = Duration.seconds(60)

// One memory state under the engine's store and the directory's: the same layer value is built once.
const testLayer = ManualSync.layerWith({ minGap }).pipe(
  Layer.provideMerge(engineLayer({}, layerMemory.pipe(Layer.provide(memoryStates)))),
  Layer.provideMerge(MemoryDirectoryStore.layerMemory.pipe(Layer.provide(memoryStates)))
)

/** The directory, with its reads of runs held until `readers` have read: requests that race for sure. */
const readersMeet = (readers: number) =>
  Layer.effect(
    DirectoryStore,
    Effect.gen(function* () {
      const store = yield* DirectoryStore
      const met = yield* Deferred.make<void>()
      let arrived = 0
      return DirectoryStore.of({
        ...store,
        recentRuns: (org, id, limit) =>
          Effect.gen(function* () {
            const runs = yield* store.recentRuns(org, id, limit)
            arrived += 1
            if (arrived === readers) yield* Deferred.succeed(met, undefined)
            yield* Deferred.await(met)
            return runs
          })
      })
    })
  ).pipe(Layer.provide(MemoryDirectoryStore.layerMemory.pipe(Layer.provide(memoryStates))))

const racingLayer = ManualSync.layerWith({ minGap }).pipe(
  Layer.provide(readersMeet(2)),
  Layer.provideMerge(engineLayer({}, layerMemory.pipe(Layer.provide(memoryStates))))
)

const drain = Effect.gen(function* () {
  let runs = 0
  yield* Scheduler.drain({ worker: "scheduler", concurrency: 2, onOutcome: () => Effect.sync(() => runs++) })
  return runs
})

const pauseAndResume = (pair: Pair, times: number) =>
  Effect.gen(function* () {
    const directory = yield* DirectoryStore
    for (let i = 0; i < times; i++) {
      yield* directory.setPaused(pair.id, true, yield* DateTime.now)
      yield* TestClock.adjust("1 second")
      yield* directory.setPaused(pair.id, false, yield* DateTime.now)
      assert.strictEqual(yield* drain, 0, `resumption ${i + 1} synced the pair`)
    }
  })

const nextSync = (pair: Pair) => Effect.map(contents(pair), ({ pair: stored }) => stored.nextSyncAt!)

const refusal = (id: string) =>
  Effect.flatMap(ManualSync, (manual) => Effect.flip(manual.syncNow(id, "operator"))).pipe(
    Effect.map((refused) => refused.message)
  )

const rateLimited: Script = {
  failure: { message: "too many requests (429)", retryable: true, retryAfterSeconds: 3600 }
}

describe("pausing and resuming a pair", () => {
  it.effect("keeps its interval: a synced pair is not synced again until its planned time", () =>
    Effect.gen(function* () {
      const pair = yield* addPair({ documents: [document("a")] })
      assert.strictEqual(yield* drain, 1)
      const planned = yield* nextSync(pair)
      yield* pauseAndResume(pair, 8)
      assert.isTrue(DateTime.Equivalence(yield* nextSync(pair), planned))
      yield* TestClock.setTime(DateTime.toEpochMillis(planned))
      assert.strictEqual(yield* drain, 1)
    }).pipe(Effect.provide(testLayer))
  )

  it.effect("keeps a failing pair's backoff and its portal's Retry-After", () =>
    Effect.gen(function* () {
      const backingOff = yield* addPair({ failure: { message: "portal down", retryable: true } })
      const asked = yield* addPair(rateLimited)
      assert.strictEqual(yield* drain, 2)
      const [backoff, retryAfter] = [yield* nextSync(backingOff), yield* nextSync(asked)]
      yield* pauseAndResume(backingOff, 8)
      yield* pauseAndResume(asked, 8)
      assert.isTrue(DateTime.Equivalence(yield* nextSync(backingOff), backoff))
      assert.isTrue(DateTime.Equivalence(yield* nextSync(asked), retryAfter))
      assert.strictEqual(DateTime.toEpochMillis(retryAfter), 3600_000)
    }).pipe(Effect.provide(testLayer))
  )

  it.effect("a paused pair shows no next sync, and is never claimed", () =>
    Effect.gen(function* () {
      const pair = yield* addPair({ documents: [document("a")] }, { dueIn: "-1 minute" })
      const paused = yield* (yield* DirectoryStore).setPaused(pair.id, true, yield* DateTime.now)
      assert.strictEqual(paused._tag === "Some" && paused.value.nextSyncAt, null)
      assert.strictEqual(yield* drain, 0)
    }).pipe(Effect.provide(testLayer))
  )
})

describe("sync now", () => {
  it.effect("runs a pair never synced, then refuses it until MANUAL_SYNC_MIN_SECONDS after that run", () =>
    Effect.gen(function* () {
      const manual = yield* ManualSync
      const pair = yield* addPair({ documents: [document("a")] }, { dueIn: "1 hour" })
      assert.strictEqual((yield* manual.syncNow(pair.id, "operator"))._tag, "Succeeded")
      yield* TestClock.adjust("59 seconds")
      assert.strictEqual(
        yield* refusal(pair.id),
        `integration ${pair.id} synced less than 1m ago (MANUAL_SYNC_MIN_SECONDS); it may sync again from 1970-01-01T00:01:00.000Z`
      )
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* manual.syncNow(pair.id, "operator"))._tag, "Succeeded")
      assert.deepStrictEqual(
        (yield* contents(pair)).runs.map((run) => run.outcome),
        ["succeeded", "succeeded"]
      )
    }).pipe(Effect.provide(testLayer))
  )

  it.effect("is refused until the time its portal's Retry-After named, which the refusal gives", () =>
    Effect.gen(function* () {
      const manual = yield* ManualSync
      const pair = yield* addPair(rateLimited)
      assert.strictEqual((yield* manual.syncNow(pair.id, "operator"))._tag, "Failed")
      for (const wait of ["61 seconds", "30 minutes", "28 minutes"] as const) {
        yield* TestClock.adjust(wait)
        assert.strictEqual(
          yield* refusal(pair.id),
          `integration ${pair.id} may not sync before 1970-01-01T01:00:00.000Z: its portal asked not to be asked again until then (Retry-After)`
        )
      }
      yield* TestClock.adjust("59 seconds")
      assert.strictEqual((yield* manual.syncNow(pair.id, "operator"))._tag, "Failed")
      assert.strictEqual((yield* contents(pair)).runs.length, 2)
    }).pipe(Effect.provide(testLayer))
  )

  it.effect("of two requests that read the last run at once, one runs and the other is refused", () =>
    Effect.gen(function* () {
      const manual = yield* ManualSync
      const pair = yield* addPair({ documents: [document("a")] }, { dueIn: "1 hour" })
      const [first, second] = yield* Effect.all(
        [manual.syncNow(pair.id, "one"), manual.syncNow(pair.id, "two")].map((request) => Effect.result(request)),
        { concurrency: "unbounded" }
      )
      const outcomes = [first!, second!].map((result) =>
        result._tag === "Success" ? result.success._tag : result.failure.message
      )
      assert.sameMembers(outcomes, [
        "Succeeded",
        `integration ${pair.id} is being synced now at another request; it may sync again 1m after that one`
      ])
      assert.strictEqual((yield* contents(pair)).runs.length, 1)
    }).pipe(Effect.provide(racingLayer))
  )

  it.effect("an unknown or malformed integration id is refused by name", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* refusal("nope"), 'no integration with id "nope"')
      const unknown = crypto.randomUUID()
      assert.strictEqual(yield* refusal(unknown), `no integration with id "${unknown}"`)
    }).pipe(Effect.provide(testLayer))
  )
})

describe("manualSyncNotBefore", () => {
  const instant = fc.integer({ min: 0, max: 10_000_000 }).map((ms) => DateTime.makeUnsafe(ms))
  const run = fc.record({
    startedAt: instant,
    lasted: fc.option(fc.integer({ min: 0, max: 600_000 }), { nil: undefined }),
    portalIn: fc.option(fc.integer({ min: -600_000, max: 10_000_000 }), { nil: undefined })
  })
  const lastRun = ({
    startedAt,
    lasted,
    portalIn
  }: {
    readonly startedAt: DateTime.Utc
    readonly lasted: number | undefined
    readonly portalIn: number | undefined
  }) => ({
    startedAt,
    finishedAt: lasted === undefined ? null : DateTime.addDuration(startedAt, Duration.millis(lasted)),
    ...(portalIn === undefined ? {} : { portalRetryAt: DateTime.addDuration(startedAt, Duration.millis(portalIn)) })
  })

  it("lets a sync in at the time it names and not a millisecond before, never within the gap or before the portal's time", () =>
    fc.assert(
      fc.property(run, instant, fc.integer({ min: 0, max: 3_600_000 }), (spec, now, gapMillis) => {
        const last = lastRun(spec)
        const gap = Duration.millis(gapMillis)
        const wait = manualSyncNotBefore(last, now, gap)
        const earliest = Math.max(
          DateTime.toEpochMillis(last.finishedAt ?? last.startedAt) + gapMillis,
          last.portalRetryAt === undefined ? 0 : DateTime.toEpochMillis(last.portalRetryAt)
        )
        if (wait === undefined) {
          assert.isAtLeast(DateTime.toEpochMillis(now), earliest)
          return
        }
        assert.strictEqual(DateTime.toEpochMillis(wait.until), earliest)
        assert.isUndefined(manualSyncNotBefore(last, wait.until, gap))
        assert.isDefined(manualSyncNotBefore(last, DateTime.addDuration(wait.until, Duration.millis(-1)), gap))
      })
    ))

  it("lets a pair that never ran sync at once", () =>
    assert.isUndefined(manualSyncNotBefore(undefined, DateTime.makeUnsafe(0), minGap)))
})
