/**
 * The dashboard's server-side sessions, stored by the SHA-256 of their token: created at
 * sign-in, found on every request, their last use stored, removed one by one (sign-out) or all of
 * a user's at once (sign-out everywhere), and the expired ones in bulk. Expiry is policy (`core/accounts/domain/Dashboard.ts`), not the
 * store's: it keeps the times and the service decides.
 */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { OrgId, UserId } from "../../shared/domain/Ids.ts"

export interface Session {
  readonly orgId: OrgId
  readonly userId: UserId
  readonly createdAt: DateTime.Utc
  readonly lastSeenAt: DateTime.Utc
}

export class SessionStore extends Context.Service<
  SessionStore,
  {
    /** Stores a session under its token's digest; two sessions never share one (a defect). */
    readonly create: (tokenHash: Uint8Array, session: Session) => Effect.Effect<void>
    /** The lookup by digest, across organizations: a session's token is its only credential. */
    readonly find: (tokenHash: Uint8Array) => Effect.Effect<Option.Option<Session>>
    readonly touch: (org: OrgId, tokenHash: Uint8Array, at: DateTime.Utc) => Effect.Effect<void>
    readonly remove: (org: OrgId, tokenHash: Uint8Array) => Effect.Effect<void>
    /** Removes every session of the user. */
    readonly removeAllOfUser: (org: OrgId, user: UserId) => Effect.Effect<void>
    /**
     * Removes every session, of any organization, created before `createdBefore` or last used
     * before `seenBefore` (expired by the policy's two limits); how many.
     */
    readonly removeExpired: (createdBefore: DateTime.Utc, seenBefore: DateTime.Utc) => Effect.Effect<number>
  }
>()("core/SessionStore") {}
