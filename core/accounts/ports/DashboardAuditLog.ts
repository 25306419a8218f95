/**
 * What people did in the dashboard, as the organization's admins will read it: who (the user),
 * what (signed in, failed to, created or revoked a key, paused or resumed a pair, signed out,
 * invited a user, changed a role, removed a user; or the service disabled a failing webhook endpoint), on what (a key's, a pair's or a user's id, an
 * invited address), when and from which address. Append-only; never a password, a
 * token or the address someone tried. Removed only by the retention, once an entry is older than it. The HTTP requests themselves are in the `AuditLog` as every
 * request is.
 */
import { Context, type DateTime, type Effect, Schema } from "effect"
import type { OrgId, UserId } from "../../shared/domain/Ids.ts"

export const DashboardAction = Schema.Literals([
  "invite_accepted",
  "sign_in",
  "sign_in_failed",
  "sign_out",
  "sign_out_everywhere",
  "key_created",
  "key_revoked",
  "integration_paused",
  "integration_resumed",
  "integration_sync_requested",
  "totp_enabled",
  "totp_disabled",
  "recovery_codes_generated",
  "recovery_code_used",
  "user_invited",
  "invite_revoked",
  "role_changed",
  "user_removed",
  // What admins do to webhooks in the dashboard; `subject` is the endpoint's or the delivery's id.
  "webhook_endpoint_created",
  "webhook_endpoint_updated",
  "webhook_endpoint_enabled",
  "webhook_endpoint_disabled_by_user",
  "webhook_endpoint_deleted",
  "webhook_endpoint_secret_rotated",
  "webhook_endpoint_tested",
  "webhook_endpoint_replayed",
  "webhook_delivery_retried",
  // The service disabled an endpoint that kept failing (no user: the service acted).
  "webhook_endpoint_disabled"
])
export type DashboardAction = typeof DashboardAction.Type

/** Who acted: a user, within their organization. */
export interface AuditedUser {
  readonly orgId: OrgId
  readonly userId: UserId
}

/** The service itself, acting for an organization with no user (it disabled a failing webhook endpoint). */
export interface AuditedService {
  readonly orgId: OrgId
  readonly userId: null
}

export interface DashboardAuditEntry {
  readonly at: DateTime.Utc
  /**
   * Null only for a failed sign-in with an address that has no account: recorded all the same, so
   * that a wrong password costs the same whether or not the address has an account. The service
   * (no user) only for `webhook_endpoint_disabled`.
   */
  readonly user: AuditedUser | AuditedService | null
  readonly action: DashboardAction
  /** What the action was on (a key's id), where it was on something. */
  readonly subject: string | null
  readonly clientAddress: string | null
}

/** Where an entry stands in the log's order (newest first): its time, then the order of recording. */
export interface DashboardAuditPosition {
  readonly at: DateTime.Utc
  readonly sequence: number
}

export interface StoredDashboardAuditEntry {
  readonly entry: DashboardAuditEntry
  readonly position: DashboardAuditPosition
}

/** A page of an organization's entries, newest first, narrowed by what is set. */
export interface DashboardAuditSearch {
  readonly orgId: OrgId
  readonly action?: DashboardAction | undefined
  readonly userId?: UserId | undefined
  /** Entries after this one in the order: older, or as old and recorded before. */
  readonly before?: DashboardAuditPosition | undefined
  readonly limit: number
}

export class DashboardAuditLog extends Context.Service<
  DashboardAuditLog,
  {
    /** Stores the entry; succeeds once it is committed. */
    readonly record: (entry: DashboardAuditEntry) => Effect.Effect<void>
    /** The organization's most recent entries, newest first. */
    readonly recent: (org: OrgId, limit: number) => Effect.Effect<ReadonlyArray<DashboardAuditEntry>>
    readonly search: (query: DashboardAuditSearch) => Effect.Effect<ReadonlyArray<StoredDashboardAuditEntry>>
    /** Removes every entry, of any organization, older than `before` (the retention); how many. */
    readonly prune: (before: DateTime.Utc) => Effect.Effect<number>
  }
>()("core/DashboardAuditLog") {}
