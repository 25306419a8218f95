/**
 * The receivables context's tables in the memory world: the directory (vendors, debtors, pairs),
 * the receivables with their history, the runs, and the events feed, as the PostgreSQL schema
 * keeps them, so that what one twin writes the others read (a sync's receivables in the list and
 * in the feed). `MemoryStorage.layer` provides it with every twin; a twin alone requires it. Rows
 * are keyed by ids in lower case, as PostgreSQL's `uuid` type compares them. Depends on `effect`
 * and core only.
 */
import { Context, type DateTime, type Duration, Effect, Layer, type Semaphore } from "effect"
import { idKey, rowKey } from "../../shared/memory/Keys.ts"
import type { StoredEvent } from "../domain/Events.ts"
import type { PlannedEvent } from "../domain/PairSync.ts"
import type { Changes, ReceivableState } from "../domain/Resources.ts"
import type { DebtorRecord, SyncRunRecord, VendorRecord } from "../ports/DirectoryStore.ts"

/** A vendor-debtor pair (`integrations`): what the directory, the sync and the read path know of it. */
export interface PairRow {
  readonly id: string
  readonly orgId: string
  readonly vendorId: string
  readonly debtorId: string
  readonly connector: string
  readonly config: unknown
  readonly interval: Duration.Duration
  /** The pair's own sync deadline; null for the engine's default. */
  readonly deadline: Duration.Duration | null
  readonly paused: boolean
  /** The planned next sync, kept while paused (nothing claims or shows a paused pair's). */
  readonly nextSyncAt: DateTime.Utc | null
  readonly lease?: { readonly owner: string; readonly expiresAt: DateTime.Utc } | undefined
  readonly lastOutcome: "succeeded" | "failed" | null
  readonly lastError: string | null
  readonly consecutiveFailures: number
  /** When an operator's manual sync of the pair last began. */
  readonly manualSyncAt?: DateTime.Utc | undefined
  /** Set while a sync of the pair is in flight: the read path's watermark stays before it. */
  readonly syncStartedAt: DateTime.Utc | null
  /** One sync of the pair at a time. */
  readonly lock: Semaphore.Semaphore
}

export interface ReceivableRow {
  readonly id: string
  readonly orgId: string
  readonly pairId: string
  readonly documentKey: string
  readonly state: ReceivableState
  readonly detectedAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

export interface HistoryRow {
  readonly changedAt: DateTime.Utc
  readonly changes: Changes
  /** The order in which entries were written, across every receivable. */
  readonly written: number
}

/** A run of a pair as `sync_runs` records it, with the quarantined documents it kept. */
export interface RunRow extends SyncRunRecord {
  readonly worker: string
}

/** An event of an organization's feed, with the time its sync finished. */
export interface EventRow extends StoredEvent {
  readonly committedAt: DateTime.Utc
}

export interface FeedRow {
  readonly events: Array<EventRow>
  latestSequence: number
  prunedThrough: number
}

export interface ReceivableTables {
  readonly vendors: Map<string, VendorRecord>
  readonly debtors: Map<string, DebtorRecord>
  readonly pairs: Map<string, PairRow>
  /**
   * The ids of each organization's pairs, as `integrations` is indexed by `org_id`: what a twin
   * reads of one organization it finds without scanning every organization's rows.
   */
  readonly orgPairs: Map<string, Set<string>>
  /** By `rowKey(org, id)`: receivable ids are unique per organization, as the table's key is. */
  readonly receivables: Map<string, ReceivableRow>
  /** A pair's receivables: their row keys by document key. */
  readonly documents: Map<string, Map<string, string>>
  /** A receivable's entries by its row key, in the order written. */
  readonly history: Map<string, Array<HistoryRow>>
  /** Per pair, in the order recorded. */
  readonly runs: Map<string, Array<RunRow>>
  /** Per pair, the events its syncs wrote, in the order written (the outbox, before numbering). */
  readonly pairEvents: Map<string, Array<PlannedEvent>>
  readonly feeds: Map<string, FeedRow>
  /** A counter for the order of writes where rows need one (history entries). */
  written: number
}

/** Stores a receivable row, or replaces it, and indexes it under its pair's document key. */
export const putReceivable = (tables: ReceivableTables, row: ReceivableRow) => {
  const at = rowKey(row.orgId, row.id)
  tables.receivables.set(at, row)
  const documents = tables.documents.get(row.pairId) ?? new Map<string, string>()
  tables.documents.set(row.pairId, documents)
  documents.set(row.documentKey, at)
}

/** Appends a history entry of a receivable, numbered in the order of all writes. */
export const addHistory = (tables: ReceivableTables, at: string, entry: Omit<HistoryRow, "written">) => {
  tables.written += 1
  const row = { ...entry, written: tables.written }
  const entries = tables.history.get(at)
  if (entries === undefined) tables.history.set(at, [row])
  else entries.push(row)
}

/** Stores a pair's row, or replaces it, and indexes it under its organization. */
export const putPair = (tables: ReceivableTables, row: PairRow) => {
  const was = tables.pairs.get(row.id)
  if (was !== undefined && was.orgId !== row.orgId) tables.orgPairs.get(was.orgId)?.delete(row.id)
  tables.pairs.set(row.id, row)
  const ids = tables.orgPairs.get(row.orgId)
  if (ids === undefined) tables.orgPairs.set(row.orgId, new Set([row.id]))
  else ids.add(row.id)
}

/** The organization's pairs, in the order they were stored. */
export const pairsOf = (tables: ReceivableTables, org: string): Array<PairRow> =>
  Array.from(tables.orgPairs.get(idKey(org)) ?? [], (id) => tables.pairs.get(id)!)

/** The pair's receivables, in the order they were first stored. */
export const receivablesOf = (tables: ReceivableTables, pairId: string): Array<ReceivableRow> =>
  Array.from(tables.documents.get(pairId)?.values() ?? [], (at) => tables.receivables.get(at)!)

/** Changes the pair's row, which is replaced rather than changed in place. */
export const updatePair = (tables: ReceivableTables, id: string, change: Partial<PairRow>) => {
  const row = tables.pairs.get(id)
  if (row !== undefined) tables.pairs.set(id, { ...row, ...change })
}

/** Records a run of the pair, after its earlier ones. */
export const addRun = (tables: ReceivableTables, pairId: string, run: RunRow) => {
  const runs = tables.runs.get(pairId)
  if (runs === undefined) tables.runs.set(pairId, [run])
  else runs.push(run)
}

/** The organization's feed, created empty on first use. */
export const feedOf = (tables: ReceivableTables, org: string): FeedRow => {
  const found = tables.feeds.get(idKey(org))
  if (found !== undefined) return found
  const feed: FeedRow = { events: [], latestSequence: 0, prunedThrough: 0 }
  tables.feeds.set(idKey(org), feed)
  return feed
}

export class ReceivablesState extends Context.Service<ReceivablesState, ReceivableTables>()(
  "core/receivables/memory/ReceivablesState"
) {
  /** A fresh, empty state each time the layer is built. */
  static readonly layer: Layer.Layer<ReceivablesState> = Layer.effect(
    ReceivablesState,
    Effect.sync(() =>
      ReceivablesState.of({
        vendors: new Map(),
        debtors: new Map(),
        pairs: new Map(),
        orgPairs: new Map(),
        receivables: new Map(),
        documents: new Map(),
        history: new Map(),
        runs: new Map(),
        pairEvents: new Map(),
        feeds: new Map(),
        written: 0
      })
    )
  )
}
