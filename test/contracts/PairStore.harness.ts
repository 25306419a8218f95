/**
 * What the `PairStore` contract needs beside the port itself: a way to seed pairs and to read
 * back everything stored of one, which each implementation provides in its own terms (SQL, the
 * memory store's seeding); and the writes a sync would make, built from states, so that the
 * contract holds storage to its word without planning anything.
 */
import { Context, DateTime, type Effect, Option } from "effect"
import { historyEntry } from "../../core/receivables/domain/History.ts"
import type { PairReceivable, PlannedEvent } from "../../core/receivables/domain/PairSync.ts"
import type { Changes, ReceivableState } from "../../core/receivables/domain/Resources.ts"
import type { Pair, PairWrites, RunCounts } from "../../core/receivables/ports/PairStore.ts"
import type { ReceivableId } from "../../core/shared/domain/Ids.ts"

export interface StoredRun {
  readonly worker: string
  readonly outcome: "succeeded" | "failed"
  readonly counts: RunCounts | null
  readonly error: string | null
}

/** Everything stored of one pair, as comparable plain data. */
export interface StoredPair {
  /** In document key order. */
  readonly receivables: ReadonlyArray<Omit<PairReceivable, "detectedAt"> & { readonly updatedAt: number }>
  /** In the order written. */
  readonly history: ReadonlyArray<{ readonly receivableId: string; readonly changes: Changes }>
  /** Event tags in feed order. */
  readonly events: ReadonlyArray<string>
  readonly runs: ReadonlyArray<StoredRun>
  readonly nextSyncAt: number
  readonly leaseOwner: string | null
  readonly consecutiveFailures: number
}

export class PairStoreHarness extends Context.Service<
  PairStoreHarness,
  {
    /** Pauses every pair there is, so that a test's claims and counts see only its own. */
    readonly reset: Effect.Effect<void>
    /**
     * A new pair due `dueInSeconds` from now (negative: overdue), of a new organization or of the
     * organization of `sameOrganizationAs`.
     */
    readonly addPair: (options: {
      readonly dueInSeconds: number
      readonly paused?: boolean
      readonly sameOrganizationAs?: Pair
    }) => Effect.Effect<Pair>
    /** Stores a receivable of the pair outside any sync, as an import would. */
    readonly importReceivable: (pair: Pair, receivable: PairReceivable) => Effect.Effect<void>
    readonly stored: (pair: Pair) => Effect.Effect<StoredPair>
    /** Lets the pair's lease run out, as a crashed worker's does. */
    readonly expireLease: (pair: Pair) => Effect.Effect<void>
    /** Lets every run's lease run out, as a dead worker's does. */
    readonly expireRuns: Effect.Effect<void>
    /** Leases of runs, live or run out, and documents staged, all told. */
    readonly runsLeft: Effect.Effect<number>
    /**
     * Succeeds once a session of the pair, asked for while another holds the pair, is seen
     * waiting for it (each store shows that its own way); dies when it is not.
     */
    readonly sessionWaiting: (pair: Pair) => Effect.Effect<void>
  }
>()("test/PairStoreHarness") {}

let counter = 0
const hex = () => (++counter).toString(16).padStart(32, "0")

export const receivableId = (): ReceivableId => `rcv_${hex()}` as ReceivableId

// Each event carries a tag of its own, by which the stored events are told apart and compared.
const event = (type: PlannedEvent["type"], id: ReceivableId, at: DateTime.Utc): PlannedEvent => ({
  type,
  receivableId: id,
  createdAt: at,
  data: { receivable_id: id, tag: hex() }
})

/** The tag an event of `writesFor` carries. */
export const eventTag = (event: { readonly data: unknown }): string => (event.data as { tag: string }).tag

/**
 * The writes that bring `keys` to `states`, given what the pair holds of them (`current`): a
 * new receivable for an unknown key, a change with its history entry for a known one, an event
 * for each, nothing for a state already held.
 */
export const writesFor = (
  current: ReadonlyArray<PairReceivable>,
  next: ReadonlyArray<readonly [key: string, state: ReceivableState]>,
  at: DateTime.Utc
): PairWrites => {
  const held = new Map(current.map((r) => [r.documentKey, r]))
  const inserts: Array<PairReceivable> = []
  const updates: Array<PairWrites["updates"][number]> = []
  const events: Array<PlannedEvent> = []
  for (const [documentKey, state] of next) {
    const existing = held.get(documentKey)
    if (existing === undefined) {
      const id = receivableId()
      inserts.push({ id, documentKey, state, detectedAt: at })
      events.push(event("receivable.created", id, at))
      continue
    }
    const entry = historyEntry(existing.state, state, at)
    if (Option.isNone(entry)) continue
    updates.push({ ...existing, state, history: entry.value })
    events.push(event("receivable.updated", existing.id, at))
  }
  return { inserts, updates, events }
}

export const noCounts: RunCounts = { fetched: 0, created: 0, updated: 0, unchanged: 0, quarantined: 0 }

export const inSeconds = (now: DateTime.Utc, seconds: number) => DateTime.toEpochMillis(DateTime.add(now, { seconds }))
