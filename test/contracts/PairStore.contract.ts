/**
 * The contract of the `PairStore` port, one suite run against every implementation of it (the
 * memory twin and PostgreSQL), as the connector conformance kit is run against every connector:
 * sessions are atomic and serialize per pair, reads see the session's own writes, claims are
 * leased the longest overdue first, a run's session reads what it staged, and a run whose lease
 * ran out applies nothing. A test file needs one line: `describePairStoreContract(name, layer)`.
 */
import { assert, layer as withLayer } from "@effect/vitest"
import { DateTime, Deferred, Duration, Effect, Exit, Fiber, type Layer, Scope } from "effect"
import fc from "fast-check"
import type { PairReceivable } from "../../core/receivables/domain/PairSync.ts"
import { type FinishedRun, LeaseLost, PairNotFound, PairStore } from "../../core/receivables/ports/PairStore.ts"
import { document } from "../core/services/SyncKit.ts"
import { arbitraryState } from "../support/arbitraries.ts"
import { claimLaw, failures, leases, overdue } from "./PairStore.claims.ts"
import { inSeconds, noCounts, PairStoreHarness, writesFor } from "./PairStore.harness.ts"
import { sessionsLaw } from "./PairStore.laws.ts"

const finishing = (now: DateTime.Utc, counts = noCounts): FinishedRun => ({
  counts,
  quarantine: [{ documentKey: "q", reasons: ["the portal returned this document twice"] }],
  nextSyncAt: DateTime.add(now, { hours: 1 })
})

const byKey = (receivables: ReadonlyArray<PairReceivable>) =>
  receivables.map(({ id, documentKey, state }) => ({ id, documentKey, state }))

export const describePairStoreContract = (name: string, layer: Layer.Layer<PairStore | PairStoreHarness, unknown>) =>
  withLayer(layer, { excludeTestServices: true, timeout: 120_000 })(`PairStore contract: ${name}`, (it) => {
    it.effect("get answers the pair it stores, and PairNotFound for one it does not", () =>
      Effect.gen(function* () {
        const store = yield* PairStore
        const pair = yield* (yield* PairStoreHarness).addPair({ dueInSeconds: 60 })
        assert.deepStrictEqual(yield* store.get(pair.id), pair)
        const missing = yield* Effect.flip(store.get("00000000-0000-4000-8000-000000000000"))
        assert.instanceOf(missing, PairNotFound)
      })
    )

    it.effect("a session reads its own writes; others see them all at once, when it finishes", () =>
      Effect.gen(function* () {
        const store = yield* PairStore
        const harness = yield* PairStoreHarness
        const pair = yield* harness.addPair({ dueInSeconds: -60 })
        const before = yield* harness.stored(pair)
        const now = yield* DateTime.now
        const [a, b] = fc.sample(arbitraryState, { numRuns: 2, seed: 1 })
        yield* Effect.scoped(
          Effect.gen(function* () {
            const session = yield* store.session(pair, "w", now)
            yield* session.writeChunk(writesFor([], [["a", a!]], now))
            const written = yield* session.receivablesByKeys(["a", "b"])
            assert.deepStrictEqual(
              written.map((r) => [r.documentKey, r.state]),
              [["a", a]]
            )
            yield* session.writeChunk(
              writesFor(
                written,
                [
                  ["a", b!],
                  ["b", b!]
                ],
                now
              )
            )
            assert.deepStrictEqual(yield* harness.stored(pair), before)
            yield* session.finish(finishing(now, { ...noCounts, fetched: 3, created: 2, updated: 1 }))
            assert.isTrue(Exit.isFailure(yield* Effect.exit(session.receivablesByKeys(["a"]))), "a finished session")
          })
        )
        const after = yield* harness.stored(pair)
        assert.deepStrictEqual(
          after.receivables.map((r) => [r.documentKey, r.state]),
          [
            ["a", b],
            ["b", b]
          ]
        )
        assert.strictEqual(new Set(after.receivables.map((r) => r.updatedAt)).size, 1, "one time for the session")
        assert.strictEqual(after.history.length, 1)
        assert.strictEqual(after.events.length, 3)
        assert.deepStrictEqual(after.runs, [
          {
            worker: "w",
            outcome: "succeeded",
            counts: { ...noCounts, fetched: 3, created: 2, updated: 1 },
            error: null
          }
        ])
        assert.strictEqual(after.nextSyncAt, inSeconds(now, 3600))
      })
    )

    it.effect(
      "a session that fails, dies, is interrupted or just ends before it finishes leaves the pair as it was",
      () =>
        Effect.gen(function* () {
          const store = yield* PairStore
          const harness = yield* PairStoreHarness
          const pair = yield* harness.addPair({ dueInSeconds: -60 })
          const now = yield* DateTime.now
          const [state] = fc.sample(arbitraryState, { numRuns: 1, seed: 2 })
          const before = yield* harness.stored(pair)
          const written = yield* Deferred.make<void>()
          // Two chunks, the second after a read that the first's writes must have reached.
          const writing = Effect.gen(function* () {
            const session = yield* store.session(pair, "w", now)
            yield* session.writeChunk(writesFor([], [["a", state!]], now))
            const current = yield* session.receivablesByKeys(["a", "b"])
            yield* session.writeChunk(writesFor(current, [["b", state!]], now))
          })
          assert.isTrue(Exit.isFailure(yield* Effect.exit(Effect.scoped(Effect.andThen(writing, Effect.fail("x"))))))
          assert.isTrue(Exit.isFailure(yield* Effect.exit(Effect.scoped(Effect.andThen(writing, Effect.die("x"))))))
          assert.isTrue(Exit.isSuccess(yield* Effect.exit(Effect.scoped(writing))), "a session never finished")
          const fiber = yield* Effect.forkChild(
            Effect.scoped(
              writing.pipe(Effect.andThen(Deferred.succeed(written, undefined)), Effect.andThen(Effect.never))
            )
          )
          yield* Deferred.await(written)
          yield* Fiber.interrupt(fiber)
          assert.deepStrictEqual(yield* harness.stored(pair), before)
        })
    )

    it.effect("sessions of one pair take turns: the second reads what the first wrote", () =>
      Effect.gen(function* () {
        const store = yield* PairStore
        const harness = yield* PairStoreHarness
        const pair = yield* harness.addPair({ dueInSeconds: -60 })
        const now = yield* DateTime.now
        const [state] = fc.sample(arbitraryState, { numRuns: 1, seed: 3 })
        const opened = yield* Deferred.make<void>()
        const go = yield* Deferred.make<void>()
        const first = yield* Effect.forkChild(
          Effect.scoped(
            Effect.gen(function* () {
              const session = yield* store.session(pair, "first", now)
              yield* Deferred.succeed(opened, undefined)
              yield* Deferred.await(go)
              yield* session.writeChunk(writesFor([], [["a", state!]], now))
              yield* session.finish(finishing(now))
            })
          )
        )
        yield* Deferred.await(opened)
        const secondOpened = yield* Deferred.make<void>()
        const second = yield* Effect.forkChild(
          Effect.scoped(
            Effect.gen(function* () {
              const session = yield* store.session(pair, "second", now)
              yield* Deferred.succeed(secondOpened, undefined)
              const seen = yield* session.receivablesByKeys(["a"])
              yield* session.finish(finishing(now))
              return seen
            })
          )
        )
        yield* harness.sessionWaiting(pair)
        assert.isFalse(yield* Deferred.isDone(secondOpened), "the second session opened while the first held the pair")
        yield* Deferred.succeed(go, undefined)
        yield* Fiber.join(first)
        assert.deepStrictEqual(
          (yield* Fiber.join(second)).map((r) => r.state),
          [state]
        )
      })
    )

    it.effect("a receivable stored outside any sync is found by its key in the pair's first session", () =>
      Effect.gen(function* () {
        const store = yield* PairStore
        const harness = yield* PairStoreHarness
        const pair = yield* harness.addPair({ dueInSeconds: -60 })
        const now = yield* DateTime.now
        const [imported] = writesFor(
          [],
          [["imported", fc.sample(arbitraryState, { numRuns: 1, seed: 4 })[0]!]],
          now
        ).inserts
        yield* harness.importReceivable(pair, imported!)
        const found = yield* Effect.scoped(
          Effect.flatMap(store.session(pair, "w", now), (session) => session.receivablesByKeys(["imported", "other"]))
        )
        assert.deepStrictEqual(byKey(found), byKey([imported!]))
      })
    )

    it.effect("a run's session reads what it staged, in order, and drops it with the lease when it finishes", () =>
      Effect.gen(function* () {
        const store = yield* PairStore
        const harness = yield* PairStoreHarness
        const pair = yield* harness.addPair({ dueInSeconds: -60 })
        const documents = ["k1", "k2", "k3", "k4", "k5"].map((key) => document(key))
        yield* Effect.scoped(
          Effect.gen(function* () {
            const run = yield* store.startRun(pair, "w", Duration.seconds(30))
            yield* run.stage(documents.slice(0, 2))
            yield* run.stage(documents.slice(2))
            assert.isTrue(yield* run.renew)
            const now = yield* DateTime.now
            const session = yield* store.session(pair, "w", now, { lease: run, fetchedAt: now })
            assert.deepStrictEqual(yield* session.staged(0, 2), documents.slice(0, 2))
            assert.deepStrictEqual(yield* session.staged(2, 2), documents.slice(2, 4))
            assert.deepStrictEqual(yield* session.staged(4, 2), documents.slice(4))
            assert.deepStrictEqual(yield* session.staged(6, 2), [])
            yield* session.finish(finishing(now))
            assert.isFalse(yield* run.renew, "a finished run's lease is gone")
          })
        )
        assert.strictEqual(yield* harness.runsLeft, 0)
      })
    )

    it.effect("a run whose lease ran out applies nothing, and the next run sweeps what it staged", () =>
      Effect.gen(function* () {
        const store = yield* PairStore
        const harness = yield* PairStoreHarness
        const pair = yield* harness.addPair({ dueInSeconds: -60 })
        const before = yield* harness.stored(pair)
        const dead = yield* Scope.make()
        const run = yield* Scope.provide(store.startRun(pair, "stalled", Duration.seconds(30)), dead)
        yield* run.stage([document("k1")])
        yield* harness.expireRuns
        assert.isFalse(yield* run.renew, "a lease that ran out is not renewed")
        const now = yield* DateTime.now
        const lost = yield* Effect.scoped(
          Effect.flip(store.session(pair, "stalled", now, { lease: run, fetchedAt: now }))
        )
        assert.instanceOf(lost, LeaseLost)
        assert.deepStrictEqual(yield* harness.stored(pair), before)
        yield* Effect.scoped(store.startRun(pair, "next", Duration.seconds(30)))
        assert.strictEqual(yield* harness.runsLeft, 0, "the dead run's lease and staging are swept")
        yield* Scope.close(dead, Exit.void)
      })
    )

    it.effect("after any sequence of sessions, finished or not, the stored pair equals the model", () => sessionsLaw)

    it.effect("due, unpaused pairs are claimed the longest overdue first, each by one worker at a time", () => claimLaw)

    it.effect("an expired lease is taken over; a worker hands back only the leases it holds", () => leases)

    it.effect(
      "a failed run is recorded with its retry time and counted; a finished session clears the count",
      () => failures
    )

    it.effect(
      "overdue pairs are the unpaused ones whose next sync is further back than the given lateness",
      () => overdue
    )
  })
