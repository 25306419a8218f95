/**
 * The sync engine on the memory twin of `PairStore`, in virtual time: how it folds a portal's
 * answer into chunks, plans and runs (the outcome does not depend on the chunk size; duplicates
 * across chunks; the quarantine cap), one pair's syncs taking turns, and the runs metric. Its
 * failures are in `SyncEngineFailures.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Fiber, Metric } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import { quarantineKept, SyncEngine } from "../../../core/receivables/services/SyncEngine.ts"
import { addPair, contents, document, engineLayer, rescript } from "./SyncKit.ts"

const secondsFromNow = (at: DateTime.Utc) =>
  Effect.map(DateTime.now, (now) => (DateTime.toEpochMillis(at) - DateTime.toEpochMillis(now)) / 1000)

const counted = (outcome: string) =>
  Effect.map(Metric.snapshot, (snapshots) =>
    snapshots.reduce(
      (n, s) =>
        s.id === "sync_runs_total" && s.type === "Counter" && s.attributes?.outcome === outcome
          ? n + Number(s.state.count)
          : n,
      0
    )
  )

describe("SyncEngine", () => {
  it.effect("a pair follows its portal: all of a first answer, then only what changed, with history and events", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const pair = yield* addPair({ documents: [document("a"), document("b"), document("c")] })
      const first = yield* engine.runPair(pair, "w")
      assert.deepStrictEqual(first._tag === "Succeeded" && first.counts, {
        fetched: 3,
        created: 3,
        updated: 0,
        unchanged: 0,
        quarantined: 0
      })
      const synced = yield* contents(pair)
      const ahead = yield* secondsFromNow(synced.pair.nextSyncAt!)
      assert.isTrue(ahead >= 3240 && ahead <= 3960, `next sync in ${ahead} s`)

      const changed = yield* rescript(pair, {
        documents: [document("a", { portalStatus: "Paid", amountCents: 9_000 }), document("b"), document("c")]
      })
      const second = yield* engine.runPair(changed, "w")
      assert.deepStrictEqual(second._tag === "Succeeded" && second.counts, {
        fetched: 3,
        created: 0,
        updated: 1,
        unchanged: 2,
        quarantined: 0
      })
      const after = yield* contents(pair)
      assert.deepStrictEqual(
        after.events.map((e) => e.type),
        [
          "receivable.created",
          "receivable.created",
          "receivable.created",
          "receivable.updated",
          "receivable.status_changed"
        ]
      )
      assert.deepStrictEqual(Object.keys(after.history[0]!.changes).sort(), ["amount_cents", "portal_status", "status"])
      assert.deepStrictEqual(
        after.runs.map((r) => [r.worker, r.outcome]),
        [
          ["w", "succeeded"],
          ["w", "succeeded"]
        ]
      )
    }).pipe(Effect.provide(engineLayer()))
  )

  it.effect("an integration's own status wording decides before the connector's and the default table", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const texts = ["Zorblax", "On the desk", "Paid"]
      const documents = texts.map((portalStatus, i) => document(`k${i}`, { portalStatus }))
      const own = yield* addPair({ documents, statuses: { zorblax: "APPROVED", ON_THE_DESK: "DISPUTED" } })
      const plain = yield* addPair({ documents })
      for (const pair of [own, plain]) yield* engine.runPair(pair, "w")
      const statuses = (pair: typeof own) =>
        Effect.map(contents(pair), (c) => c.receivables.map((r) => [r.state.portalStatus, r.state.status]))
      assert.deepStrictEqual(yield* statuses(own), [
        ["Zorblax", "APPROVED"],
        ["On the desk", "DISPUTED"],
        ["Paid", "PAID"]
      ])
      assert.deepStrictEqual(yield* statuses(plain), [
        ["Zorblax", "ACKNOWLEDGED"],
        ["On the desk", "PENDING"],
        ["Paid", "PAID"]
      ])
    }).pipe(Effect.provide(engineLayer()))
  )

  it.effect("the outcome of a sync does not depend on how its answer is chunked", () =>
    Effect.gen(function* () {
      const invalid = "2026-02-30"
      const answer = fc.array(
        fc.tuple(fc.constantFrom("a", "b", "c", "d"), fc.integer({ min: 0, max: 5 })).map(([key, roll]) =>
          document(key, {
            amountCents: roll * 100,
            receivableDate: roll === 0 ? invalid : "2026-01-01",
            ...(roll === 1 ? { unreadable: ["the row has no amount"] } : {})
          })
        ),
        { maxLength: 9 }
      )
      const outcome = (answers: ReadonlyArray<ReadonlyArray<FetchedDocument>>, chunkSize: number) =>
        Effect.gen(function* () {
          const engine = yield* SyncEngine
          let pair = yield* addPair({ documents: [] })
          for (const documents of answers) {
            pair = yield* rescript(pair, { documents })
            yield* engine.runPair(pair, "w")
          }
          const stored = yield* contents(pair)
          return {
            receivables: stored.receivables.map((r) => [r.documentKey, r.state]),
            runs: stored.runs.map((r) => [r.run?.counts, r.run?.quarantine]),
            history: stored.history.map((h) => h.changes)
          }
        }).pipe(Effect.provide(engineLayer({ chunkSize })))
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.array(answer, { minLength: 1, maxLength: 3 }), async (answers) => {
            const [whole, ...chunked] = await Promise.all(
              [1000, 1, 2, 3].map((size) => Effect.runPromise(outcome(answers, size)))
            )
            for (const other of chunked) assert.deepStrictEqual(other, whole)
          }),
          { numRuns: 100 }
        )
      )
    })
  )

  it.effect("a run keeps the first quarantine reasons up to its cap; its count is complete", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const documents = Array.from({ length: 250 }, (_, i) => document(`k${i}`, { currency: "euro" }))
      const pair = yield* addPair({ documents: [...documents, document("good"), documents[0]!] })
      const outcome = yield* engine.runPair(pair, "w")
      assert.deepStrictEqual(
        outcome._tag === "Succeeded" && [outcome.counts.quarantined, outcome.counts.created],
        [251, 1]
      )
      const [run] = (yield* contents(pair)).runs
      assert.strictEqual(run!.run!.counts.quarantined, 251)
      assert.deepStrictEqual(
        run!.run!.quarantine.map((q) => q.documentKey),
        documents.slice(0, quarantineKept).map((d) => d.documentKey)
      )
    }).pipe(Effect.provide(engineLayer({ chunkSize: 40 })))
  )

  it.effect("two syncs of one pair at once: no duplicates, each creation recorded once", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const pair = yield* addPair({ documents: ["a", "b", "c"].map((key) => document(key)), delaySeconds: 1 })
      const both = yield* Effect.forkChild(
        Effect.all([engine.runPair(pair, "a"), engine.runPair(pair, "b")], { concurrency: 2 })
      )
      // Each portal answers a second after its sync began; the second sync begins when the first ends.
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("1 second")
      const outcomes = yield* Fiber.join(both)
      assert.deepStrictEqual(outcomes.map((o) => (o._tag === "Succeeded" ? o.counts.created : -1)).sort(), [0, 3])
      const after = yield* contents(pair)
      assert.deepStrictEqual([after.receivables.length, after.events.length], [3, 3])
    }).pipe(Effect.provide(engineLayer()))
  )

  it.effect("every run is counted in sync_runs_total by its outcome", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const [succeeded, failed] = [yield* counted("succeeded"), yield* counted("failed")]
      yield* engine.runPair(yield* addPair({ documents: [document("a")] }), "w")
      yield* engine.runPair(yield* addPair({ failure: { message: "down", retryable: true } }), "w")
      yield* engine.runPair(yield* addPair({ failure: { message: "down", retryable: true } }), "w")
      assert.deepStrictEqual([(yield* counted("succeeded")) - succeeded, (yield* counted("failed")) - failed], [1, 2])
    }).pipe(Effect.provide(engineLayer()))
  )
})
