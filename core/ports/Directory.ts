/**
 * What operators manage around the receivables: vendors (per organization), debtors (shared) and
 * integrations (one per vendor-debtor pair, with its connector, configuration and interval).
 */
import { Context, type DateTime, type Duration, type Effect, Schema } from "effect"

export interface VendorRecord {
  readonly id: string
  readonly orgId: string
  readonly name: string
  readonly createdAt: DateTime.Utc
}

export interface DebtorRecord {
  readonly id: string
  readonly name: string
  readonly createdAt: DateTime.Utc
}

export interface SyncRunRecord {
  readonly startedAt: DateTime.Utc
  readonly finishedAt: DateTime.Utc | null
  readonly outcome: string | null
  readonly fetched: number
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly quarantined: number
  readonly error: string | null
}

export interface IntegrationRecord {
  readonly id: string
  readonly orgId: string
  readonly vendor: { readonly id: string; readonly name: string }
  readonly debtor: { readonly id: string; readonly name: string }
  readonly connector: string
  readonly interval: Duration.Duration
  /** The pair's own sync deadline; null for the engine's default. */
  readonly deadline: Duration.Duration | null
  readonly paused: boolean
  readonly nextSyncAt: DateTime.Utc | null
  readonly lastOutcome: string | null
  readonly lastError: string | null
  readonly consecutiveFailures: number
}

/** What an operator gives to create an integration. */
export interface NewIntegration {
  readonly org: string
  readonly vendor: string
  readonly debtor: string
  readonly connector: string
  readonly config: unknown
  /** How often to sync; the connector's default interval when not given. */
  readonly interval?: Duration.Duration | undefined
  /** The overall deadline of the pair's syncs; the engine's default when not given. */
  readonly deadline?: Duration.Duration | undefined
}

/** Something an operator named does not exist, or cannot be done; the message says which. */
export class DirectoryRefused extends Schema.TaggedError<DirectoryRefused>()("DirectoryRefused", {
  message: Schema.String
}) {}

export class Directory extends Context.Service<
  Directory,
  {
    readonly createVendor: (org: string, name: string) => Effect.Effect<VendorRecord, DirectoryRefused>
    readonly listVendors: (org: string) => Effect.Effect<ReadonlyArray<VendorRecord>, DirectoryRefused>
    readonly createDebtor: (name: string) => Effect.Effect<DebtorRecord, DirectoryRefused>
    readonly listDebtors: Effect.Effect<ReadonlyArray<DebtorRecord>>
    readonly createIntegration: (input: NewIntegration) => Effect.Effect<IntegrationRecord, DirectoryRefused>
    readonly listIntegrations: (org: string) => Effect.Effect<ReadonlyArray<IntegrationRecord>, DirectoryRefused>
    readonly showIntegration: (
      id: string
    ) => Effect.Effect<
      { readonly integration: IntegrationRecord; readonly runs: ReadonlyArray<SyncRunRecord> },
      DirectoryRefused
    >
    readonly setPaused: (id: string, paused: boolean) => Effect.Effect<IntegrationRecord, DirectoryRefused>
  }
>()("core/Directory") {}
