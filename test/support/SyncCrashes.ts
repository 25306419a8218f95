/**
 * The sync under crashes, for any store: a pair with random receivables is synced against a random
 * change of its portal's answer, and the worker "dies" at a random step of either phase. A death
 * in the fetch runs none of the run's finalizers: its lease and staging stay as a killed process
 * leaves them. A death in the apply closes the session's scope, as the death of its connection
 * rolls back its transaction. Afterwards the pair must be wholly old (or wholly new, for a death
 * after the commit); once the dead run's lease has run out, the next sync makes it wholly new,
 * with the events and history the core's plan gives, and leaves nothing staged.
 */
import { isDeepStrictEqual } from "node:util"
import { assert } from "@effect/vitest"
import { Context, DateTime, Effect, Layer, Scope } from "effect"
import fc from "fast-check"
import { type FetchedDocument, type PairReceivable, planPairSync } from "../../core/receivables/domain/PairSync.ts"
import type { Changes, ReceivableState } from "../../core/receivables/domain/Resources.ts"
import { type Pair, type PairSession, PairStore, type RunLease } from "../../core/receivables/ports/PairStore.ts"
import { SyncEngine } from "../../core/receivables/services/SyncEngine.ts"
import type { ReceivableId } from "../../core/shared/domain/Ids.ts"
import { document } from "../core/services/SyncKit.ts"
import { arbitraryCurrency, arbitraryIsoDate, arbitraryMetadata } from "./arbitraries.ts"

/** A pair as its readers see it, with its events and history in the order written. */
export interface PairView {
  readonly receivables: ReadonlyArray<{
    readonly id: string
    readonly documentKey: string
    readonly state: ReceivableState
  }>
  readonly history: ReadonlyArray<{ readonly receivableId: string; readonly changes: Changes }>
  readonly events: ReadonlyArray<{ readonly type: string; readonly receivableId: string }>
}

/** What each store shows of itself to the property; each in its own terms. */
export class CrashWorld extends Context.Service<
  CrashWorld,
  {
    /** A new pair whose portal answers `documents` (see `SyncKit.scripted`). */
    readonly addPair: (documents: ReadonlyArray<FetchedDocument>) => Effect.Effect<Pair>
    readonly rescript: (pair: Pair, documents: ReadonlyArray<FetchedDocument>) => Effect.Effect<Pair>
    /** Receivables in document key order. */
    readonly view: (pair: Pair) => Effect.Effect<PairView>
    /** Every run's lease runs out, as time passing without a heartbeat makes it. */
    readonly expireRuns: Effect.Effect<void>
    /** Leases and staged documents of runs, live or dead. */
    readonly leftovers: Effect.Effect<number>
  }
>()("test/CrashWorld") {}

class Crash extends Error {
  constructor(step: number) {
    super(`the worker died at step ${step}`)
  }
}

// Which step dies next; zero for none. Steps are the store's calls, in the order the engine makes them.
const crash = { at: 0, step: 0, died: false }
const arm = (at: number) => {
  crash.at = at
  crash.step = 0
  crash.died = false
}
const step = Effect.suspend(() => {
  crash.step += 1
  if (crash.step !== crash.at) return Effect.void
  crash.died = true
  return Effect.die(new Crash(crash.step))
})

const wrap = (store: PairStore["Service"]) =>
  PairStore.of({
    ...store,
    startRun: (integration, worker, lease) =>
      Effect.gen(function* () {
        yield* step
        const own = yield* Scope.make()
        yield* Effect.addFinalizer((exit) => (crash.died ? Effect.void : Scope.close(own, exit)))
        const run = yield* Scope.provide(store.startRun(integration, worker, lease), own)
        return { ...run, stage: (documents) => Effect.andThen(step, run.stage(documents)) } satisfies RunLease
      }),
    session: (integration, worker, startedAt, run) =>
      Effect.gen(function* () {
        yield* step
        const session = yield* store.session(integration, worker, startedAt, run)
        return {
          at: session.at,
          staged: (from, limit) => Effect.andThen(step, session.staged(from, limit)),
          receivablesByKeys: (keys) => Effect.andThen(step, session.receivablesByKeys(keys)),
          writeChunk: (writes) => Effect.andThen(step, session.writeChunk(writes)),
          // A death right after the commit, too: the pair is then wholly new.
          finish: (ended) => step.pipe(Effect.andThen(session.finish(ended)), Effect.andThen(step))
        } satisfies PairSession
      })
  })

/**
 * `inner` with its store dying at the armed step. A run lives in a scope of its own, closed with
 * the engine's unless the worker died: a dead worker cleans nothing up.
 */
export const crashing = <A, E, R>(inner: Layer.Layer<A | PairStore, E, R>): Layer.Layer<A | PairStore, E, R> =>
  Layer.effectContext(
    Effect.map(Layer.build(inner), (context) => Context.add(context, PairStore, wrap(Context.get(context, PairStore))))
  )

const keys = ["a", "b", "c", "d", "e", "f"]

const fetched = (key: string): fc.Arbitrary<FetchedDocument> =>
  fc
    .record({
      vendorReceivableId: fc.option(fc.constantFrom("INV-1", "INV-2"), { nil: null }),
      amountCents: fc.integer({ min: 0, max: 1_000_000 }),
      currency: arbitraryCurrency,
      receivableDate: arbitraryIsoDate,
      dueDate: fc.option(arbitraryIsoDate, { nil: null }),
      portalStatus: fc.constantFrom("Submitted", "Approved", "Paid", "On hold"),
      poNumber: fc.option(fc.constantFrom("PO-1", "PO-2"), { nil: null }),
      metadata: arbitraryMetadata
    })
    .map((fields) => document(key, fields))

// A pair's answer: a random subset of keys, sometimes one twice (quarantined after its first).
const answer = fc
  .tuple(fc.subarray(keys), fc.boolean())
  .chain(([subset, twice]) =>
    fc
      .tuple(...subset.map(fetched))
      .map((documents) => (twice && documents.length > 0 ? [...documents, documents[0]!] : documents))
  )

const epoch = DateTime.makeUnsafe(0)
const refs = {
  vendor: { id: "v", name: "V" },
  debtor: { id: "d", name: "D" }
} as unknown as Pair["refs"]

const sameView = (a: PairView, b: PairView) => isDeepStrictEqual(a, b)

/** `now` is `old` with `answer` applied exactly as the core plans it: states, history, events. */
const assertPlanned = (old: PairView, answer: ReadonlyArray<FetchedDocument>, now: PairView) => {
  const current: Array<PairReceivable> = old.receivables.map((r) => ({
    id: r.id as ReceivableId,
    documentKey: r.documentKey,
    state: r.state,
    detectedAt: epoch
  }))
  let fresh = 0
  const plan = planPairSync(current, answer, {
    refs,
    now: epoch,
    newReceivableId: () => `new_${++fresh}` as ReceivableId
  })
  const expected = new Map(old.receivables.map((r) => [r.documentKey, { id: r.id, state: r.state }]))
  for (const r of [...plan.inserts, ...plan.updates]) expected.set(r.documentKey, { id: r.id, state: r.state })
  const actualId = new Map(now.receivables.map((r) => [r.documentKey, r.id]))
  const planned = new Map([...plan.inserts, ...plan.updates].map((r) => [r.id as string, actualId.get(r.documentKey)]))
  assert.deepStrictEqual(
    now.receivables.map((r) => [r.documentKey, r.state]),
    [...expected].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, r]) => [key, r.state])
  )
  for (const r of old.receivables) assert.strictEqual(actualId.get(r.documentKey), r.id, "a receivable kept its id")
  assert.deepStrictEqual(now.history, [
    ...old.history,
    ...plan.updates.map((u) => ({ receivableId: u.id, changes: u.history.changes }))
  ])
  assert.deepStrictEqual(now.events, [
    ...old.events,
    ...plan.events.map((e) => ({ type: e.type, receivableId: planned.get(e.receivableId) ?? "none" }))
  ])
}

/** Runs the property: `runs` random pairs and changes, each with a death at a random step. */
export const crashProperty = (runs: number) =>
  Effect.gen(function* () {
    const world = yield* CrashWorld
    const engine = yield* SyncEngine
    const cases = fc.sample(fc.tuple(answer, answer, fc.integer({ min: 1, max: 24 })), runs)
    for (const [before, after, at] of cases) {
      arm(0)
      const pair = yield* world.addPair(before)
      assert.strictEqual((yield* engine.runPair(pair, "seed"))._tag, "Succeeded")
      const old = yield* world.view(pair)
      const changed = yield* world.rescript(pair, after)
      arm(at)
      const outcome = yield* engine.runPair(changed, "doomed")
      const died = crash.died
      arm(0)
      const seen = yield* world.view(pair)
      yield* world.expireRuns
      assert.strictEqual((yield* engine.runPair(changed, "next"))._tag, "Succeeded")
      const now = yield* world.view(pair)
      const context = `a death at step ${at} of ${JSON.stringify({ before, after })}`
      assertPlanned(old, after, now)
      if (!died) assert.strictEqual(outcome._tag, "Succeeded", context)
      assert.isTrue(died ? sameView(seen, old) || sameView(seen, now) : sameView(seen, now), context)
      assert.strictEqual(yield* world.leftovers, 0, `a dead run left its lease or staging behind: ${context}`)
    }
  })
