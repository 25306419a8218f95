/**
 * What the sync engine needs from storage: the pairs (integrations) due for a sync, claimed with
 * a lease so that any number of workers can share them, and the atomic application of a pair's
 * sync. `syncPair` runs the planning on the pair's current receivables inside the same
 * transaction that writes the plan, so concurrent syncs of one pair serialize and never plan on
 * stale state; it reads the portal's answer a chunk at a time, so a pair of any size syncs in
 * bounded memory.
 */
import { Context, type DateTime, type Duration, type Effect, Schema, type Stream } from "effect"
import type { DebtorId, IntegrationId, OrgId, VendorId } from "../domain/Ids.ts"
import type { FetchedDocument, PairReceivable, PairRefs, PairSyncPlan } from "../domain/PairSync.ts"

export interface Integration {
  readonly id: IntegrationId
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

export interface SyncPairOptions<E> {
  readonly worker: string
  readonly startedAt: DateTime.Utc
  readonly nextSyncAt: DateTime.Utc
  readonly documents: Stream.Stream<FetchedDocument, E>
  /**
   * Plans a chunk: the pair's receivables with the chunk's document keys, the chunk, and those of
   * its keys that came in an earlier chunk of the same answer (duplicates).
   */
  readonly plan: (
    current: ReadonlyArray<PairReceivable>,
    documents: ReadonlyArray<FetchedDocument>,
    earlier: ReadonlySet<string>
  ) => Effect.Effect<PairSyncPlan, E>
}

export interface FailedRun {
  readonly worker: string
  readonly startedAt: DateTime.Utc
  readonly error: string
  readonly retryAt: DateTime.Utc
}

export class PairNotFound extends Schema.TaggedError<PairNotFound>()("PairNotFound", {
  id: Schema.String
}) {}

export class PairStore extends Context.Service<
  PairStore,
  {
    /** Leases up to `limit` due, unpaused pairs to `worker` for `lease`; expired leases are taken over. */
    readonly claimDue: (
      worker: string,
      limit: number,
      lease: Duration.Duration
    ) => Effect.Effect<ReadonlyArray<Integration>>
    readonly get: (id: string) => Effect.Effect<Integration, PairNotFound>
    /**
     * In ONE transaction holding the pair's lock, for each chunk of `documents`: reads the pair's
     * receivables with those document keys, plans with them and with the chunk's keys seen in
     * earlier chunks, writes the plan (receivables, history, events); then the pair's next sync
     * time and the run's record. Neither the keys nor anything else is held in memory for the
     * whole answer. A failure anywhere, the documents' stream included, leaves the pair as it was.
     */
    readonly syncPair: <E>(integration: Integration, options: SyncPairOptions<E>) => Effect.Effect<RunCounts, E>
    /** Records a failed run and when to try again; releases the lease. */
    readonly recordFailure: (integration: Integration, run: FailedRun) => Effect.Effect<void>
    /** Unpaused pairs whose next sync is more than `lateBy` in the past. */
    readonly countOverdue: (lateBy: Duration.Duration) => Effect.Effect<number>
    /** Hands back the leases `worker` still holds on these pairs, so that any worker may take them at once. */
    readonly releaseClaims: (worker: string, ids: ReadonlyArray<IntegrationId>) => Effect.Effect<void>
  }
>()("core/PairStore") {}
