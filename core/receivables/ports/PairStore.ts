/**
 * What the sync engine needs from storage, and nothing more: the pairs (integrations) due for a
 * sync, claimed with a lease so that any number of workers can share them; a run's own lease,
 * under which the portal's answer is staged with no transaction open (`startRun`); and a locked
 * session per sync in which the engine reads the staged documents and the pair's receivables by
 * key and writes what it planned.
 * How a portal's answer is chunked, planned and totalled is the engine's business
 * (`core/receivables/services/SyncEngine.ts`), never an implementation's. Depends on `effect` and the domain.
 */
import { Context, type DateTime, type Duration, type Effect, Schema, type Scope } from "effect"
import type { DebtorId, OrgId, PairId, VendorId } from "../../shared/domain/Ids.ts"
import type { FetchedDocument, PairReceivable, PairRefs, PairSyncPlan, Quarantined } from "../domain/PairSync.ts"

export interface Pair {
  readonly id: PairId
  readonly orgId: OrgId
  readonly refs: PairRefs & {
    readonly vendor: { readonly id: VendorId }
    readonly debtor: { readonly id: DebtorId }
  }
  readonly connector: string
  readonly config: unknown
  readonly interval: Duration.Duration
  /** The overall deadline of this pair's syncs; the engine's default when undefined. */
  readonly deadline?: Duration.Duration | undefined
  readonly consecutiveFailures: number
}

export interface RunCounts {
  readonly fetched: number
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly quarantined: number
}

/** What a chunk's plan asks storage to write: new receivables, changed ones with history, events. */
export type PairWrites = Pick<PairSyncPlan, "inserts" | "updates" | "events">

/** A successful run as recorded: its totals, the quarantine reasons kept, and the pair's next sync. */
export interface FinishedRun {
  readonly counts: RunCounts
  readonly quarantine: ReadonlyArray<Quarantined>
  readonly nextSyncAt: DateTime.Utc
}

/**
 * A run's claim on its pair while it fetches, and the documents it staged. Holding no transaction
 * and no connection between calls, it outlives a slow portal at no cost to anyone else. The lease
 * lasts its duration from the last `renew`; once it has run out it is lost for good (another run
 * may clear what it staged), and a session opened with it refuses to apply. A run's scope that
 * closes without its session finishing drops the lease and what it staged.
 */
export interface RunLease {
  readonly id: string
  /** Appends documents to what the run has staged, in the order fetched. */
  readonly stage: (documents: ReadonlyArray<FetchedDocument>) => Effect.Effect<void>
  /** Extends the lease by its duration from now; false once it was lost. */
  readonly renew: Effect.Effect<boolean>
}

/** The fetch a session applies: its run's lease, and when the fetch ended. */
export interface StagedRun {
  readonly lease: RunLease
  readonly fetchedAt: DateTime.Utc
}

/** A session asked to apply a run whose lease ran out: another run may own the pair now. */
export class LeaseLost extends Schema.TaggedError<LeaseLost>()("LeaseLost", {
  runId: Schema.String
}) {}

/**
 * One sync of one pair, holding the pair's lock: a second session of the pair waits until this
 * one's scope closes. Everything a session writes becomes visible to others at once, when
 * `finish` succeeds; a session whose scope closes without it (a failed stream, a failed
 * statement, an interruption) leaves the pair exactly as it was. Reads see the session's own writes.
 * Every row a session changes carries one time, `at`, taken when the lock was granted.
 *
 * A session numbers the events it writes: at `finish`, they take the next sequence numbers of
 * their organization's feed, after every event of a session that finished before, so that a feed
 * reader who has seen an event has seen all that precede it.
 */
export interface PairSession {
  /** The time of every change the session writes, its events' and history entries' included. */
  readonly at: DateTime.Utc
  /** The pair's receivables with these document keys (text that can be stored). */
  readonly receivablesByKeys: (keys: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<PairReceivable>>
  /**
   * The documents the session's run staged, from the `from`th (counting from 0), at most `limit`,
   * in the order fetched; none for a session opened without a run.
   */
  readonly staged: (from: number, limit: number) => Effect.Effect<ReadonlyArray<FetchedDocument>>
  /** Writes receivables, history entries and events; later reads of this session see them. */
  readonly writeChunk: (writes: PairWrites) => Effect.Effect<void>
  /**
   * Records the run (with its fetch's end, and its commit as its end) and the pair's next sync
   * time, hands back the pair's claim and the run's lease, drops what the run staged, and commits
   * all of the session's writes together. The session is over once it returns.
   */
  readonly finish: (run: FinishedRun) => Effect.Effect<void>
}

export interface FailedRun {
  readonly worker: string
  readonly startedAt: DateTime.Utc
  readonly error: string
  readonly retryAt: DateTime.Utc
  /** When the portal asked to be left alone until (its `Retry-After`, capped); kept on the run's record. */
  readonly portalRetryAt?: DateTime.Utc | undefined
}

/**
 * The store cannot be reached (its server is down, the network is cut): the same call may succeed
 * later. Any other fault of the store is a defect, which retrying cannot mend.
 */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", {
  message: Schema.String
}) {}

export class PairNotFound extends Schema.TaggedError<PairNotFound>()("PairNotFound", {
  id: Schema.String
}) {}

export class PairStore extends Context.Service<
  PairStore,
  {
    /**
     * Leases up to `limit` due, unpaused pairs to `worker` for `lease`, the longest overdue first;
     * pairs leased to another worker are skipped until their lease expires.
     */
    readonly claimDue: (worker: string, limit: number, lease: Duration.Duration) => Effect.Effect<ReadonlyArray<Pair>>
    /** Extends the leases `worker` holds on these pairs by `lease` from now, while it has them. */
    readonly renewClaims: (worker: string, ids: ReadonlyArray<PairId>, lease: Duration.Duration) => Effect.Effect<void>
    readonly get: (id: string) => Effect.Effect<Pair, PairNotFound>
    /**
     * Starts a run of the pair under a lease of its own (see `RunLease`), first clearing what runs
     * whose leases ran out left staged.
     */
    readonly startRun: (
      integration: Pair,
      worker: string,
      lease: Duration.Duration
    ) => Effect.Effect<RunLease, never, Scope.Scope>
    /**
     * Opens a sync of the pair for `worker`, waiting for the pair's lock; see `PairSession`. With a
     * staged run, it fails once it holds the lock if the run's lease was lost, and keeps the
     * lease from being taken until the session ends.
     */
    readonly session: (
      integration: Pair,
      worker: string,
      startedAt: DateTime.Utc,
      run?: StagedRun
    ) => Effect.Effect<PairSession, LeaseLost, Scope.Scope>
    /** Records a failed run and when to try again; releases the lease. */
    readonly recordFailure: (integration: Pair, run: FailedRun) => Effect.Effect<void, StoreUnavailable>
    /** Unpaused pairs whose next sync is more than `lateBy` in the past. */
    readonly countOverdue: (lateBy: Duration.Duration) => Effect.Effect<number>
    /** Hands back the leases `worker` still holds on these pairs, so that any worker may take them at once. */
    readonly releaseClaims: (worker: string, ids: ReadonlyArray<PairId>) => Effect.Effect<void>
  }
>()("core/PairStore") {}
