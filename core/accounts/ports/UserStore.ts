/**
 * What the dashboard's users and invites need from storage, and nothing more: invites stored by
 * the SHA-256 of their token and redeemed once, users with their password hash, found by e-mail
 * (sign-in) or by id within their organization, their roles, and their removal, where the last
 * admin is kept in the same step as the change. A user's second factor is `SecondFactorStore`'s;
 * redeeming an invite and removing a user clear what of it they must in the same step. What a
 * token, a password or an expiry is, is policy (`core/accounts/services/Accounts.ts`,
 * `core/admin/services/Team.ts`); implementations hold digests and hashes only.
 */
import { Context, type DateTime, type Effect, type Option, Schema } from "effect"
import type { OrganizationNotFound } from "../../access/ports/ApiKeyStore.ts"
import type { OrgId, UserId } from "../../shared/domain/Ids.ts"
import type { Role } from "../domain/Dashboard.ts"

export interface DashboardUser {
  readonly id: UserId
  readonly orgId: OrgId
  /** Normalized (trimmed, lower case); one user per address across all organizations. */
  readonly email: string
  readonly role: Role
  readonly createdAt: DateTime.Utc
}

/** A user as the team page lists them: removed ones too, which the audit log still names. */
export interface TeamMember extends DashboardUser {
  /** When an admin or operator removed them; null while they may sign in. */
  readonly removedAt: DateTime.Utc | null
  /** Whether a second factor (TOTP) is turned on: the team page shows who signs in with a password alone. */
  readonly secondFactor: boolean
}

export interface Credentials {
  readonly user: DashboardUser
  /** As the `PasswordHasher` wrote it. */
  readonly passwordHash: string
}

/** What a role change or a removal did. */
export type TeamChange = "done" | "missing" | "last_admin"

/**
 * Whether giving `target` the role `becomes` (or removing them) takes away the organization's last
 * admin: it is an admin now, will not be one, and no other admin is left. An organization that has
 * no admin (left so by an older release) may still get one, and lose members.
 */
export const takesLastAdmin = (members: ReadonlyArray<TeamMember>, target: UserId, becomes: Role | "removed") =>
  becomes !== "admin" &&
  members.some((member) => member.id === target && member.removedAt === null && member.role === "admin") &&
  !members.some((member) => member.id !== target && member.removedAt === null && member.role === "admin")

export interface Invite {
  readonly orgId: OrgId
  readonly email: string
  readonly role: Role
  readonly createdAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc
  readonly usedAt: DateTime.Utc | null
  /**
   * The address of the dashboard user who sent it; null for an operator's invite (the CLI) and
   * for one made before the sender was recorded.
   */
  readonly invitedBy: string | null
}

export interface NewInvite {
  /** As the operator gave it; an organization that does not exist is `OrganizationNotFound`. */
  readonly orgId: string
  readonly email: string
  readonly role: Role
  /** The SHA-256 of the invite's token; 32 bytes. */
  readonly tokenHash: Uint8Array
  readonly expiresAt: DateTime.Utc
  /** The organization's dashboard user who sends it; none when an operator does. */
  readonly invitedBy?: DashboardUser | undefined
}

/** The address already belongs to a user of another organization. */
export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", {
  email: Schema.String
}) {}

export class UserStore extends Context.Service<
  UserStore,
  {
    /**
     * Stores the invite and, in the same step, voids the organization's older unused invites of
     * that address: the newest link is the only one that works.
     */
    readonly createInvite: (invite: NewInvite) => Effect.Effect<Invite, OrganizationNotFound | EmailTaken>
    readonly findInvite: (tokenHash: Uint8Array) => Effect.Effect<Option.Option<Invite>>
    /** The organization's invites still usable at `now` (unused, unexpired), by address. */
    readonly pendingInvites: (org: OrgId, now: DateTime.Utc) => Effect.Effect<ReadonlyArray<Invite>>
    /**
     * Voids (marks used at `now`) the organization's unused, unexpired invites of the address:
     * whether there was one.
     */
    readonly revokeInvites: (org: OrgId, email: string, now: DateTime.Utc) => Effect.Effect<boolean>
    /**
     * In one step: marks the invite used, if it is unused and not expired at `now`, stores its
     * user with this password hash (a new user, or the organization's user of that address with
     * the invite's role, its second factor, recovery codes and held sign-ins removed) and marks the organization's
     * other unused invites of that address used.
     * None when the invite is unknown, used or expired; a second redemption racing the first
     * finds it used. `EmailTaken` (and nothing changed) when another organization's user has
     * taken the address since the invite was made.
     */
    readonly redeemInvite: (
      tokenHash: Uint8Array,
      passwordHash: string,
      now: DateTime.Utc
    ) => Effect.Effect<Option.Option<DashboardUser>, EmailTaken>
    /**
     * A user and its password hash by normalized address: the one lookup across organizations.
     * A removed user is not found, here or by `findUser`.
     */
    readonly findByEmail: (email: string) => Effect.Effect<Option.Option<Credentials>>
    readonly findUser: (org: OrgId, id: UserId) => Effect.Effect<Option.Option<DashboardUser>>
    /** The organization's users, removed ones included, by address. */
    readonly listUsers: (org: OrgId) => Effect.Effect<ReadonlyArray<TeamMember>>
    /**
     * Gives a user (not removed) another role: `missing` for an unknown or removed one,
     * `last_admin` (and nothing changed) where it would take away the organization's last admin.
     * The check and the change are one step against every other change of the organization's
     * team, so two admins demoting each other at once cannot both succeed.
     */
    readonly changeRole: (org: OrgId, id: UserId, role: Role) => Effect.Effect<TeamChange>
    /**
     * Removes a user (not removed yet) at `now`, with their proposed secret and held sign-ins, voiding
     * the organization's unused invites of their address: `missing` for an unknown or already removed one, `last_admin` as `changeRole` says.
     * A later invite of the address by the same organization lets them in again.
     */
    readonly removeUser: (org: OrgId, id: UserId, now: DateTime.Utc) => Effect.Effect<TeamChange>
  }
>()("core/UserStore") {}
