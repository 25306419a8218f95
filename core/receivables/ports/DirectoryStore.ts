/**
 * What the directory stores: vendors (per organization), debtors (shared) and integrations (one
 * per vendor-debtor pair), with the recent sync runs of a pair. A storage port: rows in, rows out,
 * no validation. Whether a name, a configuration or an interval is acceptable, and whether the
 * rows an integration references exist, is decided in `core/receivables/services/Directory.ts` before a write.
 */
import { Context, type DateTime, type Duration, type Effect, type Option } from "effect"
import type { DebtorId, OrgId, PairId, VendorId } from "../../shared/domain/Ids.ts"
import type { Quarantined } from "../domain/PairSync.ts"

/**
 * The quarantined documents a run record carries, at most: enough to see what went wrong, and a
 * page stays small however many a run quarantined (`quarantined` counts them all).
 */
export const quarantineShown = 20

export interface VendorRecord {
  readonly id: VendorId
  readonly orgId: OrgId
  readonly name: string
  readonly createdAt: DateTime.Utc
}

export interface DebtorRecord {
  readonly id: DebtorId
  readonly name: string
  readonly createdAt: DateTime.Utc
}

export interface SyncRunRecord {
  readonly startedAt: DateTime.Utc
  /** When the run ended: a successful one's apply committed then. */
  readonly finishedAt: DateTime.Utc | null
  readonly outcome: string | null
  readonly fetched: number
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly quarantined: number
  /** The first quarantined documents the run kept, in the order it met them, with their reasons. */
  readonly quarantine: ReadonlyArray<Quarantined>
  readonly error: string | null
  /** A failed run's portal asked not to be asked again before this time (its `Retry-After`, capped). */
  readonly portalRetryAt?: DateTime.Utc | undefined
}

export interface IntegrationRecord {
  readonly id: PairId
  readonly orgId: OrgId
  readonly vendor: { readonly id: VendorId; readonly name: string }
  readonly debtor: { readonly id: DebtorId; readonly name: string }
  readonly connector: string
  readonly interval: Duration.Duration
  /** The pair's own sync deadline; null for the engine's default. */
  readonly deadline: Duration.Duration | null
  readonly paused: boolean
  /** Null while paused: a paused pair is not synced (its planned next sync is kept for its resumption). */
  readonly nextSyncAt: DateTime.Utc | null
  readonly lastOutcome: string | null
  readonly lastError: string | null
  readonly consecutiveFailures: number
}

/** An integration as it is first stored; its vendor (of `org`) and debtor must be stored already. */
export interface IntegrationRow {
  readonly org: OrgId
  readonly vendor: VendorId
  readonly debtor: DebtorId
  readonly connector: string
  /** The configuration as validated, stored as JSON. */
  readonly config: unknown
  readonly interval: Duration.Duration
  readonly deadline: Duration.Duration | null
  readonly nextSyncAt: DateTime.Utc
}

export class DirectoryStore extends Context.Service<
  DirectoryStore,
  {
    readonly insertVendor: (org: OrgId, name: string) => Effect.Effect<VendorRecord>
    readonly findVendor: (org: OrgId, id: VendorId) => Effect.Effect<Option.Option<VendorRecord>>
    /** The organization's vendors, by name then id. */
    readonly listVendors: (org: OrgId) => Effect.Effect<ReadonlyArray<VendorRecord>>
    readonly insertDebtor: (name: string) => Effect.Effect<DebtorRecord>
    readonly findDebtor: (id: DebtorId) => Effect.Effect<Option.Option<DebtorRecord>>
    /** Every debtor, by name then id. */
    readonly listDebtors: Effect.Effect<ReadonlyArray<DebtorRecord>>
    /** Stores the pair's integration; none when the pair already has one (nothing is changed). */
    readonly insertIntegration: (row: IntegrationRow) => Effect.Effect<Option.Option<IntegrationRecord>>
    readonly findIntegration: (id: PairId) => Effect.Effect<Option.Option<IntegrationRecord>>
    /** The organization's integrations, by vendor name, debtor name, then id. */
    readonly listIntegrations: (org: OrgId) => Effect.Effect<ReadonlyArray<IntegrationRecord>>
    /** The integration's newest `limit` sync runs, newest first, each with up to `quarantineShown` documents. */
    readonly recentRuns: (org: OrgId, id: PairId, limit: number) => Effect.Effect<ReadonlyArray<SyncRunRecord>>
    /**
     * Pauses (keeping an earlier pause's time) or resumes the integration, as of `at`. A paused
     * pair shows no next sync, but keeps the one its schedule planned (its interval, its failure
     * backoff, a portal's `Retry-After`), and resuming restores exactly that one, never `at`:
     * pausing and resuming cannot bring a sync forward. None when no integration has the id.
     */
    readonly setPaused: (
      id: PairId,
      paused: boolean,
      at: DateTime.Utc
    ) => Effect.Effect<Option.Option<IntegrationRecord>>
    /**
     * Marks a manual sync of the integration as begun at `at`, unless one was marked after
     * `since`: true when marked. Atomic: of concurrent marks of one pair, one wins.
     */
    readonly markManualSync: (id: PairId, at: DateTime.Utc, since: DateTime.Utc) => Effect.Effect<boolean>
  }
>()("core/DirectoryStore") {}
