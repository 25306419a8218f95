/**
 * What the dashboard's users and invites need from storage, and nothing more: invites stored by
 * the SHA-256 of their token and redeemed once, users with their password hash, found by e-mail
 * (sign-in) or by id within their organization. What a token, a password or an expiry is, is
 * policy (`core/services/DashboardAccess.ts`); implementations hold digests and hashes only.
 */
import { Context, type DateTime, type Effect, type Option, Schema } from "effect"
import type { Role } from "../domain/Dashboard.ts"
import type { OrgId, UserId } from "../domain/Ids.ts"
import type { OrganizationNotFound } from "./ApiKeyStore.ts"

export interface DashboardUser {
  readonly id: UserId
  readonly orgId: OrgId
  /** Normalized (trimmed, lower case); one user per address across all organizations. */
  readonly email: string
  readonly role: Role
  readonly createdAt: DateTime.Utc
}

export interface Credentials {
  readonly user: DashboardUser
  /** As the `PasswordHasher` wrote it. */
  readonly passwordHash: string
}

export interface Invite {
  readonly orgId: OrgId
  readonly email: string
  readonly role: Role
  readonly createdAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc
  readonly usedAt: DateTime.Utc | null
}

export interface NewInvite {
  /** As the operator gave it; an organization that does not exist is `OrganizationNotFound`. */
  readonly orgId: string
  readonly email: string
  readonly role: Role
  /** The SHA-256 of the invite's token; 32 bytes. */
  readonly tokenHash: Uint8Array
  readonly expiresAt: DateTime.Utc
}

/** The address already belongs to a user of another organization. */
export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", {
  email: Schema.String
}) {}

export class DashboardUserStore extends Context.Service<
  DashboardUserStore,
  {
    readonly createInvite: (invite: NewInvite) => Effect.Effect<Invite, OrganizationNotFound | EmailTaken>
    readonly findInvite: (tokenHash: Uint8Array) => Effect.Effect<Option.Option<Invite>>
    /**
     * In one step: marks the invite used, if it is unused and not expired at `now`, stores its
     * user with this password hash (a new user, or the organization's user of that address with
     * the invite's role) and marks the organization's other unused invites of that address used.
     * None when the invite is unknown, used or expired; a second redemption racing the first
     * finds it used. `EmailTaken` (and nothing changed) when another organization's user has
     * taken the address since the invite was made.
     */
    readonly redeemInvite: (
      tokenHash: Uint8Array,
      passwordHash: string,
      now: DateTime.Utc
    ) => Effect.Effect<Option.Option<DashboardUser>, EmailTaken>
    /** A user and its password hash by normalized address: the one lookup across organizations. */
    readonly findByEmail: (email: string) => Effect.Effect<Option.Option<Credentials>>
    readonly findUser: (org: OrgId, id: UserId) => Effect.Effect<Option.Option<DashboardUser>>
  }
>()("core/DashboardUserStore") {}
