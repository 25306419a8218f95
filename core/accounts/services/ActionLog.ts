/**
 * The organization's action log as the services write it: every entry of the `DashboardAuditLog`
 * is made here, so that who acted is told the same way whoever records it (a user by their
 * organization and id, the service by the organization alone, nobody for a failed sign-in with
 * an address that has no account). Depends on `effect` and the core.
 */
import { DateTime, Effect } from "effect"
import type { OrgId, UserId } from "../../shared/domain/Ids.ts"
import { type DashboardAction, DashboardAuditLog } from "../ports/DashboardAuditLog.ts"

/** What the service itself does, with no user: it disabled a webhook endpoint that kept failing. */
export type ServiceAction = "webhook_endpoint_disabled"

/** What people do. */
export type UserAction = Exclude<DashboardAction, ServiceAction>

/** A user as the log names them. */
export interface ActingUser {
  readonly orgId: OrgId
  readonly id: UserId
}

export interface ByUser {
  /** Null only for a failed sign-in with an address that has no account. */
  readonly user: ActingUser | null
  readonly action: UserAction
  readonly subject: string | null
  readonly clientAddress: string | null
}

/** The log, over the `DashboardAuditLog` in context. */
export const make = Effect.map(Effect.service(DashboardAuditLog), (log) => ({
  /** Records, now, what a user did (or tried). */
  byUser: ({ user, action, subject, clientAddress }: ByUser) =>
    Effect.flatMap(DateTime.now, (at) =>
      log.record({
        at,
        user: user === null ? null : { orgId: user.orgId, userId: user.id },
        action,
        subject,
        clientAddress
      })
    ),
  /** Records what the service did for `orgId` at `at`: no user, no client address. */
  byService: (orgId: OrgId, action: ServiceAction, subject: string, at: DateTime.Utc) =>
    log.record({ at, user: { orgId, userId: null }, action, subject, clientAddress: null })
}))

export type ActionLog = Effect.Success<typeof make>
