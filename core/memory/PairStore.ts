/**
 * `PairStore` in memory: the twin of the PostgreSQL store for embedders and fast tests, holding
 * to the same contract (`test/contracts/PairStore.contract.ts`): a session holds its pair's lock
 * and shows nothing to others until `finish` applies all of it at once; claims are leased, the
 * longest overdue first. `MemoryPairs` seeds and inspects it. It also serves the events its
 * sessions write as an `EventFeed` (`test/contracts/EventFeed.contract.ts`), numbered per
 * organization as sessions finish. Depends on `effect` and core only.
 */
import { Context, DateTime, type Duration, Effect, Layer, Option, Random, Semaphore } from "effect"
import type { StoredEvent } from "../domain/Events.ts"
import type { IntegrationId, OrgId } from "../domain/Ids.ts"
import type { PairReceivable, PlannedEvent } from "../domain/PairSync.ts"
import type { Changes } from "../domain/Resources.ts"
import {
  EventCursorAhead,
  EventCursorExpired,
  EventFeed,
  type EventPage,
  type EventsAfter
} from "../ports/EventFeed.ts"
import {
  type FailedRun,
  type FinishedRun,
  type Integration,
  PairNotFound,
  PairStore,
  type PairWrites
} from "../ports/PairStore.ts"

/** A pair's schedule and lease as the store keeps them. */
export interface MemoryPair {
  readonly integration: Integration
  readonly nextSyncAt: DateTime.Utc
  readonly paused: boolean
  readonly lease?: { readonly owner: string; readonly expiresAt: DateTime.Utc } | undefined
  readonly lastOutcome?: "succeeded" | "failed" | undefined
  readonly lastError?: string | undefined
}

export interface StoredReceivable extends PairReceivable {
  readonly detectedAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

export interface StoredHistory {
  readonly receivableId: string
  readonly changedAt: DateTime.Utc
  readonly changes: Changes
}

export interface StoredRun {
  readonly worker: string
  readonly startedAt: DateTime.Utc
  readonly finishedAt: DateTime.Utc
  readonly outcome: "succeeded" | "failed"
  readonly run?: FinishedRun | undefined
  readonly error?: string | undefined
}

/** Everything stored of one pair; receivables in document key order, the rest as written. */
export interface PairContents {
  readonly pair: MemoryPair
  readonly receivables: ReadonlyArray<StoredReceivable>
  readonly history: ReadonlyArray<StoredHistory>
  readonly events: ReadonlyArray<PlannedEvent>
  readonly runs: ReadonlyArray<StoredRun>
}

/** Seeds and inspects the memory store. */
export class MemoryPairs extends Context.Service<
  MemoryPairs,
  {
    /** Adds a pair, or replaces its schedule and lease (to pause it, move its next sync, expire its lease). */
    readonly put: (pair: MemoryPair) => Effect.Effect<void>
    /** Adds receivables to a pair outside any sync, as an import would. */
    readonly importReceivables: (id: IntegrationId, receivables: ReadonlyArray<PairReceivable>) => Effect.Effect<void>
    readonly contents: (id: IntegrationId) => Effect.Effect<PairContents, PairNotFound>
  }
>()("core/memory/MemoryPairs") {}

interface PairState {
  pair: MemoryPair
  readonly receivables: Map<string, StoredReceivable>
  readonly history: Array<StoredHistory>
  readonly events: Array<PlannedEvent>
  readonly runs: Array<StoredRun>
  readonly lock: Semaphore.Semaphore
}

const byKey = (a: StoredReceivable, b: StoredReceivable) =>
  a.documentKey < b.documentKey ? -1 : a.documentKey > b.documentKey ? 1 : 0

/** An organization's feed: its events in sequence order, each with the time its sync finished. */
interface OrgFeed {
  readonly events: Array<StoredEvent & { readonly committedAt: DateTime.Utc }>
  latestSequence: number
  prunedThrough: number
}

const make = Effect.sync(() => {
  const pairs = new Map<string, PairState>()
  const feeds = new Map<OrgId, OrgFeed>()
  const feedOf = (org: OrgId) => {
    const found = feeds.get(org)
    if (found !== undefined) return found
    const feed: OrgFeed = { events: [], latestSequence: 0, prunedThrough: 0 }
    feeds.set(org, feed)
    return feed
  }
  const stateOf = (id: string) =>
    Effect.suspend(() => {
      const state = pairs.get(id)
      return state === undefined ? Effect.fail(new PairNotFound({ id })) : Effect.succeed(state)
    })
  const update = (state: PairState, change: Partial<MemoryPair>) => {
    state.pair = { ...state.pair, ...change }
  }
  const leaseHeld = (pair: MemoryPair, now: DateTime.Utc) =>
    pair.lease !== undefined && !DateTime.isLessThan(pair.lease.expiresAt, now)

  const put = (pair: MemoryPair) =>
    Effect.sync(() => {
      const state = pairs.get(pair.integration.id)
      if (state !== undefined) state.pair = pair
      else {
        const lock = Semaphore.makeUnsafe(1)
        pairs.set(pair.integration.id, { pair, receivables: new Map(), history: [], events: [], runs: [], lock })
      }
    })

  const importReceivables = (id: IntegrationId, receivables: ReadonlyArray<PairReceivable>) =>
    Effect.gen(function* () {
      const state = yield* Effect.orDie(stateOf(id))
      const now = yield* DateTime.now
      for (const r of receivables) state.receivables.set(r.documentKey, { ...r, detectedAt: now, updatedAt: now })
    })

  const contents = (id: IntegrationId) =>
    Effect.map(stateOf(id), (state) => ({
      pair: state.pair,
      receivables: [...state.receivables.values()].sort(byKey),
      history: [...state.history],
      events: [...state.events],
      runs: [...state.runs]
    }))

  const claimDue = (worker: string, limit: number, lease: Duration.Duration) =>
    Effect.map(DateTime.now, (now) => {
      const due = [...pairs.values()]
        .filter((s) => !s.pair.paused && !DateTime.isGreaterThan(s.pair.nextSyncAt, now) && !leaseHeld(s.pair, now))
        .sort(
          (a, b) =>
            DateTime.toEpochMillis(a.pair.nextSyncAt) - DateTime.toEpochMillis(b.pair.nextSyncAt) ||
            (a.pair.integration.id < b.pair.integration.id ? -1 : 1)
        )
        .slice(0, Math.max(0, limit))
      for (const s of due) update(s, { lease: { owner: worker, expiresAt: DateTime.addDuration(now, lease) } })
      return due.map((s) => s.pair.integration)
    })

  const get = (id: string) => Effect.map(stateOf(id), (state) => state.pair.integration)

  const recordFailure = (integration: Integration, run: FailedRun) =>
    Effect.gen(function* () {
      const state = yield* Effect.orDie(stateOf(integration.id))
      const now = yield* DateTime.now
      const stored = state.pair.integration
      update(state, {
        integration: { ...stored, consecutiveFailures: stored.consecutiveFailures + 1 },
        nextSyncAt: run.retryAt,
        lease: undefined,
        lastOutcome: "failed",
        lastError: run.error
      })
      state.runs.push({
        worker: run.worker,
        startedAt: run.startedAt,
        finishedAt: now,
        outcome: "failed",
        error: run.error
      })
    })

  const countOverdue = (lateBy: Duration.Duration) =>
    Effect.map(DateTime.now, (now) => {
      const before = DateTime.subtractDuration(now, lateBy)
      return [...pairs.values()].filter((s) => !s.pair.paused && DateTime.isLessThan(s.pair.nextSyncAt, before)).length
    })

  const releaseClaims = (worker: string, ids: ReadonlyArray<IntegrationId>) =>
    Effect.sync(() => {
      for (const id of ids) {
        const state = pairs.get(id)
        if (state !== undefined && state.pair.lease?.owner === worker) update(state, { lease: undefined })
      }
    })

  const session = Effect.fnUntraced(function* (integration: Integration, worker: string, startedAt: DateTime.Utc) {
    const state = yield* Effect.orDie(stateOf(integration.id))
    yield* state.lock.takeScoped(1)
    const at = yield* DateTime.now
    const batch = BigInt(yield* Random.nextIntBetween(1, Number.MAX_SAFE_INTEGER))
    // Writes wait here until `finish` applies them in one synchronous step: no reader sees part.
    const staged = new Map<string, StoredReceivable>()
    const history: Array<StoredHistory> = []
    const events: Array<PlannedEvent> = []
    let finished = false
    const open = <A>(f: () => A) =>
      Effect.suspend(() =>
        finished
          ? Effect.die(new Error(`the sync session of pair ${integration.id} is already finished`))
          : Effect.sync(f)
      )
    const current = (key: string) => staged.get(key) ?? state.receivables.get(key)

    const receivablesByKeys = (keys: ReadonlyArray<string>) =>
      open(() => [...new Set(keys)].flatMap((key) => current(key) ?? []))

    // What a database's constraints would refuse is refused here too: a key stored twice, a change
    // to a receivable the pair does not have.
    const writeChunk = (writes: PairWrites) =>
      Effect.flatMap(
        open(() => {
          for (const r of writes.inserts) {
            if (current(r.documentKey) !== undefined) return `document key ${r.documentKey} is already stored`
            staged.set(r.documentKey, { ...r, detectedAt: at, updatedAt: at })
          }
          for (const r of writes.updates) {
            const existing = current(r.documentKey)
            if (existing?.id !== r.id) return `receivable ${r.id} is not stored under ${r.documentKey}`
            staged.set(r.documentKey, { ...existing, state: r.state, updatedAt: at })
            history.push({ receivableId: r.id, changedAt: at, changes: r.history.changes })
          }
          events.push(...writes.events)
          return undefined
        }),
        (refused) => (refused === undefined ? Effect.void : Effect.die(new Error(refused)))
      )

    const finish = (run: FinishedRun) =>
      open(() => {
        finished = true
        for (const [key, r] of staged) state.receivables.set(key, r)
        state.history.push(...history)
        state.events.push(...events)
        const feed = feedOf(integration.orgId)
        for (const [index, event] of events.entries()) {
          feed.events.push({
            batch,
            ordinal: index + 1,
            sequence: feed.latestSequence + index + 1,
            type: event.type,
            createdAt: event.createdAt,
            data: event.data,
            committedAt: at
          })
        }
        feed.latestSequence += events.length
        state.runs.push({ worker, startedAt, finishedAt: at, outcome: "succeeded", run })
        update(state, {
          integration: { ...state.pair.integration, consecutiveFailures: 0 },
          nextSyncAt: run.nextSyncAt,
          lease: undefined,
          lastOutcome: "succeeded",
          lastError: undefined
        })
      })

    return { at, receivablesByKeys, writeChunk, finish }
  })

  const plain = ({ committedAt: _, ...event }: OrgFeed["events"][number]): StoredEvent => event

  const after = (org: OrgId, request: EventsAfter) =>
    Effect.suspend((): Effect.Effect<EventPage, EventCursorExpired | EventCursorAhead> => {
      const feed = feedOf(org)
      const after = request.after ?? feed.prunedThrough
      if (after < feed.prunedThrough) {
        return Effect.fail(new EventCursorExpired({ after, prunedThrough: feed.prunedThrough }))
      }
      if (after > feed.latestSequence) {
        return Effect.fail(new EventCursorAhead({ after, latestSequence: feed.latestSequence }))
      }
      const matching = feed.events.filter(
        (event) => event.sequence > after && (request.types?.includes(event.type) ?? true)
      )
      return Effect.succeed({
        events: matching.slice(0, request.limit).map(plain),
        hasMore: matching.length > request.limit,
        latestSequence: feed.latestSequence
      })
    })

  const find = (org: OrgId, place: { readonly batch: bigint; readonly ordinal: number }) =>
    Effect.sync(() =>
      Option.map(
        Option.fromNullishOr(
          feeds.get(org)?.events.find((event) => event.batch === place.batch && event.ordinal === place.ordinal)
        ),
        plain
      )
    )

  const prune = (before: DateTime.Utc) =>
    Effect.sync(() => {
      let removed = 0
      for (const feed of feeds.values()) {
        const kept = feed.events.filter((event) => !DateTime.isLessThan(event.committedAt, before))
        for (const event of feed.events) {
          if (DateTime.isLessThan(event.committedAt, before)) {
            feed.prunedThrough = Math.max(feed.prunedThrough, event.sequence)
            removed += 1
          }
        }
        feed.events.splice(0, feed.events.length, ...kept)
      }
      return removed
    })

  return {
    store: PairStore.of({ claimDue, get, session, recordFailure, countOverdue, releaseClaims }),
    pairs: MemoryPairs.of({ put, importReceivables, contents }),
    feed: EventFeed.of({ after, find, prune })
  }
})

/** The memory store, its seeding and its events feed, sharing one state per layer build. */
export const layerMemory: Layer.Layer<PairStore | MemoryPairs | EventFeed> = Layer.effectContext(
  Effect.map(make, ({ store, pairs, feed }) =>
    Context.make(PairStore, store).pipe(Context.add(MemoryPairs, pairs), Context.add(EventFeed, feed))
  )
)
