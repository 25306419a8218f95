/**
 * One sync of one pair in memory, as the memory `PairStore` opens it (the twin of
 * `PgPairSession.ts`): it holds the pair's lock, checks that its run's lease is still held (and
 * keeps it from being taken until the session ends), marks the pair as syncing so that the read
 * path's watermark stays before its rows, and stages every write until `finish` applies all of it
 * in one synchronous step, numbering its events in the organization's feed. A session whose scope
 * closes without `finish` leaves the tables as they were. Depends on `effect` and core only.
 */
import { DateTime, Effect, Random } from "effect"
import type { ReceivableId } from "../../shared/domain/Ids.ts"
import { rowKey } from "../../shared/memory/Keys.ts"
import type { FetchedDocument, PairReceivable, PlannedEvent } from "../domain/PairSync.ts"
import type { Changes } from "../domain/Resources.ts"
import { type FinishedRun, LeaseLost, type PairSession, type PairWrites } from "../ports/PairStore.ts"
import {
  addHistory,
  addRun,
  feedOf,
  type PairRow,
  putReceivable,
  type ReceivableRow,
  type ReceivableTables,
  updatePair
} from "./ReceivablesState.ts"

/** A run's staged fetch as the memory store keeps it, for the session that applies it. */
export interface MemoryRun {
  readonly id: string
  readonly documents: ReadonlyArray<FetchedDocument>
  /** Keeps the lease from being taken until `let go`; false, holding nothing, when it ran out. */
  readonly hold: (now: DateTime.Utc) => boolean
  readonly letGo: () => void
  /** The run is applied: its lease and what it staged are gone. */
  readonly end: () => void
}

/** A stored receivable as the sync reads it, with the time it last changed. */
export const asPairReceivable = (row: ReceivableRow): PairReceivable & { readonly updatedAt: DateTime.Utc } => ({
  id: row.id as ReceivableId,
  documentKey: row.documentKey,
  state: row.state,
  detectedAt: row.detectedAt,
  updatedAt: row.updatedAt
})

/** Opens a session of `pair`, waiting for its lock; see `PairSession` in the port. */
export const openSession = Effect.fnUntraced(function* (
  tables: ReceivableTables,
  pair: PairRow,
  worker: string,
  startedAt: DateTime.Utc,
  run: MemoryRun | undefined
) {
  const { pairs } = tables
  const update = (change: Partial<PairRow>) => updatePair(tables, pair.id, change)
  yield* pair.lock.takeScoped(1)
  const at = yield* DateTime.now
  if (run !== undefined) {
    if (!run.hold(at)) return yield* new LeaseLost({ runId: run.id })
    yield* Effect.addFinalizer(() => Effect.sync(run.letGo))
  }
  // The mark the read path's watermark stays before, until the sync ends either way.
  update({ syncStartedAt: at })
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      if (pairs.get(pair.id)?.syncStartedAt === at) update({ syncStartedAt: null })
    })
  )
  const batch = BigInt(yield* Random.nextIntBetween(1, Number.MAX_SAFE_INTEGER))
  // Writes wait here until `finish` applies them in one synchronous step: no reader sees part.
  const written = new Map<string, ReceivableRow>()
  const history: Array<{ readonly at: string; readonly changes: Changes }> = []
  const events: Array<PlannedEvent> = []
  let finished = false
  const open = <A>(f: () => A) =>
    Effect.suspend(() =>
      finished ? Effect.die(new Error(`the sync session of pair ${pair.id} is already finished`)) : Effect.sync(f)
    )
  const current = (key: string): ReceivableRow | undefined => {
    const stored = tables.documents.get(pair.id)?.get(key)
    return written.get(key) ?? (stored === undefined ? undefined : tables.receivables.get(stored))
  }

  const staged = (from: number, limit: number) =>
    open(() => (run === undefined ? [] : run.documents.slice(from, from + limit)))

  const receivablesByKeys = (keys: ReadonlyArray<string>) =>
    open(() =>
      [...new Set(keys)].flatMap((key) => {
        const row = current(key)
        return row === undefined ? [] : [asPairReceivable(row)]
      })
    )

  // What a database's constraints would refuse is refused here too: a key stored twice, a change
  // to a receivable the pair does not have.
  const writeChunk = (writes: PairWrites) =>
    Effect.flatMap(
      open(() => {
        for (const r of writes.inserts) {
          if (current(r.documentKey) !== undefined) return `document key ${r.documentKey} is already stored`
          written.set(r.documentKey, {
            id: r.id,
            orgId: pair.orgId,
            pairId: pair.id,
            documentKey: r.documentKey,
            state: r.state,
            detectedAt: at,
            updatedAt: at
          })
        }
        for (const r of writes.updates) {
          const existing = current(r.documentKey)
          if (existing?.id !== r.id) return `receivable ${r.id} is not stored under ${r.documentKey}`
          written.set(r.documentKey, { ...existing, state: r.state, updatedAt: at })
          history.push({ at: rowKey(pair.orgId, r.id), changes: r.history.changes })
        }
        events.push(...writes.events)
        return undefined
      }),
      (refused) => (refused === undefined ? Effect.void : Effect.die(new Error(refused)))
    )

  const finish = (ended: FinishedRun) =>
    Effect.flatMap(DateTime.now, (committedAt) =>
      open(() => {
        finished = true
        run?.end()
        for (const row of written.values()) putReceivable(tables, row)
        for (const entry of history) addHistory(tables, entry.at, { changedAt: at, changes: entry.changes })
        tables.pairEvents.set(pair.id, [...(tables.pairEvents.get(pair.id) ?? []), ...events])
        const feed = feedOf(tables, pair.orgId)
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
        addRun(tables, pair.id, {
          worker,
          startedAt,
          finishedAt: committedAt,
          outcome: "succeeded",
          ...ended.counts,
          quarantine: ended.quarantine,
          error: null
        })
        update({
          consecutiveFailures: 0,
          nextSyncAt: ended.nextSyncAt,
          lease: undefined,
          lastOutcome: "succeeded",
          lastError: null,
          syncStartedAt: null
        })
      })
    )

  const session: PairSession = { at, staged, receivablesByKeys, writeChunk, finish }
  return session
})
