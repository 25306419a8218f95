/**
 * The `PairStore` contract's law about sessions, as a property: after any sequence of sessions of
 * a pair, each writing chunks and then finishing, failing, dying, being interrupted or simply
 * ending, the stored pair equals a model that applies the finished sessions only; and within a
 * session, every read answers what the model plus the session's own writes hold.
 */
import { assert } from "@effect/vitest"
import { DateTime, Effect, Exit } from "effect"
import fc from "fast-check"
import type { PairReceivable } from "../../core/receivables/domain/PairSync.ts"
import type { ReceivableState } from "../../core/receivables/domain/Resources.ts"
import { type Pair, PairStore, type PairWrites } from "../../core/receivables/ports/PairStore.ts"
import { arbitraryState } from "../support/arbitraries.ts"
import { eventTag, noCounts, PairStoreHarness, type StoredPair, writesFor } from "./PairStore.harness.ts"

type Ending = "finish" | "fail" | "die" | "interrupt" | "end"

interface SessionSpec {
  readonly chunks: ReadonlyArray<ReadonlyArray<readonly [string, ReceivableState]>>
  readonly ending: Ending
}

const keys = ["k0", "k1", "k2", "k3", "k4"]
const chunk = fc.uniqueArray(fc.tuple(fc.constantFrom(...keys), arbitraryState), {
  selector: ([key]) => key,
  maxLength: 4
})
const sessions = fc.array(
  fc.record({
    chunks: fc.array(chunk, { maxLength: 3 }),
    ending: fc.constantFrom<Ending>("finish", "finish", "fail", "die", "interrupt", "end")
  }),
  { minLength: 1, maxLength: 5 }
)

/** What the pair must hold: `StoredPair` without times, lease or schedule. */
interface Model {
  readonly receivables: Map<string, PairReceivable>
  readonly history: Array<StoredPair["history"][number]>
  readonly events: Array<string>
  readonly runs: Array<StoredPair["runs"][number]>
}

const copy = (model: Model): Model => ({
  receivables: new Map(model.receivables),
  history: [...model.history],
  events: [...model.events],
  runs: [...model.runs]
})

const apply = (model: Model, writes: PairWrites) => {
  for (const r of [...writes.inserts, ...writes.updates]) {
    model.receivables.set(r.documentKey, {
      id: r.id,
      documentKey: r.documentKey,
      state: r.state,
      detectedAt: r.detectedAt
    })
  }
  for (const u of writes.updates) model.history.push({ receivableId: u.id, changes: u.history.changes })
  model.events.push(...writes.events.map(eventTag))
}

const plain = (receivables: ReadonlyArray<Omit<PairReceivable, "detectedAt">>) =>
  receivables
    .map(({ id, documentKey, state }) => ({ id, documentKey, state }))
    .sort((a, b) => (a.documentKey < b.documentKey ? -1 : 1))

const runSession = (pair: Pair, spec: SessionSpec, model: Model, worker: string) =>
  Effect.gen(function* () {
    const store = yield* PairStore
    const now = yield* DateTime.now
    const staged = copy(model)
    const reads: Array<readonly [seen: ReadonlyArray<PairReceivable>, expected: ReadonlyArray<PairReceivable>]> = []
    const counts = { ...noCounts, fetched: spec.chunks.flat().length }
    const body = Effect.gen(function* () {
      const session = yield* store.session(pair, worker, now)
      for (const next of spec.chunks) {
        const chunkKeys = next.map(([key]) => key)
        const current = yield* session.receivablesByKeys(chunkKeys)
        reads.push([current, chunkKeys.flatMap((key) => staged.receivables.get(key) ?? [])])
        const writes = writesFor(current, next, now)
        yield* session.writeChunk(writes)
        apply(staged, writes)
      }
      if (spec.ending === "finish") {
        yield* session.finish({ counts, quarantine: [], nextSyncAt: DateTime.add(now, { hours: 1 }) })
      }
      if (spec.ending === "fail") return yield* Effect.fail("the portal failed")
      if (spec.ending === "die") return yield* Effect.die("a statement failed")
      if (spec.ending === "interrupt") return yield* Effect.interrupt
    })
    const exit = yield* Effect.exit(Effect.scoped(body))
    assert.strictEqual(Exit.isSuccess(exit), spec.ending === "finish" || spec.ending === "end", String(exit))
    for (const [seen, expected] of reads) assert.deepStrictEqual(plain(seen), plain(expected))
    if (spec.ending !== "finish") return model
    staged.runs.push({ worker, outcome: "succeeded", counts, error: null })
    return staged
  })

const law = (specs: ReadonlyArray<SessionSpec>) =>
  Effect.gen(function* () {
    const harness = yield* PairStoreHarness
    const pair = yield* harness.addPair({ dueInSeconds: 3600 })
    let model: Model = { receivables: new Map(), history: [], events: [], runs: [] }
    for (const [index, spec] of specs.entries()) {
      model = yield* runSession(pair, spec, model, `w${index}`)
      const stored = yield* harness.stored(pair)
      assert.deepStrictEqual(plain(stored.receivables), plain([...model.receivables.values()]))
      assert.deepStrictEqual(stored.history, model.history)
      assert.deepStrictEqual(stored.events, model.events)
      assert.deepStrictEqual(stored.runs, model.runs)
    }
  })

export const sessionsLaw = Effect.gen(function* () {
  const context = yield* Effect.context<PairStore | PairStoreHarness>()
  yield* Effect.promise(() =>
    fc.assert(
      fc.asyncProperty(sessions, (specs) => Effect.runPromise(Effect.provideContext(law(specs), context))),
      { numRuns: 30 }
    )
  )
})
