/**
 * The dashboard's server-side sessions, stored by the SHA-256 of their token: created at
 * sign-in, found on every request, their last use stored, removed one by one (sign-out) or all of
 * a user's at once (sign-out everywhere), and the expired ones in bulk. Expiry is policy (`core/accounts/domain/Dashboard.ts`), not the
 * store's: it keeps the times and the service decides.
 */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { OrgId, UserId } from "../../shared/domain/Ids.ts"

/**
 * Why a user's sessions were ended for them (not by their own sign-out), as the sign-in page
 * tells the holder of an ended session: kept with each ended session's digest, so that it is told
 * only to whoever holds that session's token.
 */
export type EndReason = "role_changed" | "removed" | "signed_out_everywhere" | "reinvited" | "invite_redeemed"

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
    /** Removes every session of the user, keeping each one's digest with why it ended. */
    readonly removeAllOfUser: (org: OrgId, user: UserId, reason: EndReason, at: DateTime.Utc) => Effect.Effect<void>
    /** Why the session of this digest was ended, while that is kept. */
    readonly endedReason: (tokenHash: Uint8Array) => Effect.Effect<Option.Option<EndReason>>
    /**
     * Removes every session, of any organization, created before `createdBefore` or last used
     * before `seenBefore` (expired by the policy's two limits); how many. The reasons of sessions
     * ended before `createdBefore` go too: a session that old would have expired anyway.
     */
    readonly removeExpired: (createdBefore: DateTime.Utc, seenBefore: DateTime.Utc) => Effect.Effect<number>
  }
>()("core/SessionStore") {}
