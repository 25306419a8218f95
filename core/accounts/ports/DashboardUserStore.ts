/**
 * What the dashboard's users and invites need from storage, and nothing more: invites stored by
 * the SHA-256 of their token and redeemed once, users with their password hash, found by e-mail
 * (sign-in) or by id within their organization, and their second factor with its recovery codes
 * (digests, each used once). What a token, a password, a code or an expiry is, is policy
 * (`core/accounts/services/Accounts.ts`, `SecondFactors.ts`); implementations hold digests and hashes only.
 */
import { Context, type DateTime, type Effect, type Option, type Redacted, Schema } from "effect"
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

/** Sign-ins of one user that may wait for their code at once. */
export const maxHeldSignIns = 50

/** A wrong code entered after a right password: when, and from which client address. */
export interface WrongCode {
  readonly at: DateTime.Utc
  readonly clientAddress: string | null
}

/** A user's TOTP secret (base32), and the last time step a code of theirs was accepted for. */
export interface SecondFactor {
  readonly secret: Redacted.Redacted<string>
  readonly lastStep: number
  /** Wrong codes in a row since the last right one or the last lock (0 when it is turned on). */
  readonly wrongCodes: number
  /** Locks since the last right code (0 when it is turned on): each lasts longer than the one before. */
  readonly locks: number
  /** No code is accepted before this instant; null when it was never locked since turned on. */
  readonly lockedUntil: DateTime.Utc | null
  /** The latest wrong code since it was turned on, kept after a right one so that its owner sees it. */
  readonly lastWrongCode: WrongCode | null
}

/** What turning a factor on stores; the counts and the lock start afresh. */
export type NewSecondFactor = Pick<SecondFactor, "secret" | "lastStep">

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
    /**
     * Stores the invite and, in the same step, voids the organization's older unused invites of
     * that address: the newest link is the only one that works.
     */
    readonly createInvite: (invite: NewInvite) => Effect.Effect<Invite, OrganizationNotFound | EmailTaken>
    readonly findInvite: (tokenHash: Uint8Array) => Effect.Effect<Option.Option<Invite>>
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
     * Removes a user (not removed yet) at `now`, voiding the organization's unused invites of their
     * address: `missing` for an unknown or already removed one, `last_admin` as `changeRole` says.
     * A later invite of the address by the same organization lets them in again.
     */
    readonly removeUser: (org: OrgId, id: UserId, now: DateTime.Utc) => Effect.Effect<TeamChange>
    /**
     * The secret proposed to the user for their second factor, kept until a code confirms it or
     * another replaces it; none when none is proposed.
     */
    readonly findPendingSecret: (org: OrgId, id: UserId) => Effect.Effect<Option.Option<Redacted.Redacted<string>>>
    readonly setPendingSecret: (org: OrgId, id: UserId, secret: Redacted.Redacted<string>) => Effect.Effect<void>
    readonly findSecondFactor: (org: OrgId, id: UserId) => Effect.Effect<Option.Option<SecondFactor>>
    /**
     * Turns the second factor on (with the step its confirming code used up), only where none is
     * on, in one step, clearing the pending secret: false when one already is (a second tab, or a
     * race), which is left as it is. With none, turns it off and deletes its recovery codes, in one
     * step.
     */
    readonly setSecondFactor: (org: OrgId, id: UserId, factor: NewSecondFactor | null) => Effect.Effect<boolean>
    /**
     * Records that a code of `step` was accepted, in one step and only if `step` is later than the
     * last accepted one: false when it is not (a replay, or a race with another use of it).
     */
    readonly useStep: (org: OrgId, id: UserId, step: number) => Effect.Effect<boolean>
    /**
     * Counts a wrong code against the user's factor and keeps it as the latest, in one step; with
     * `lockUntil`, also locks the factor until then, adds one to its locks and starts the count
     * again. A right code (`useStep`) starts the count and the locks again.
     */
    readonly countWrongCode: (
      org: OrgId,
      id: UserId,
      wrong: WrongCode,
      lockUntil: DateTime.Utc | null
    ) => Effect.Effect<void>
    /**
     * Voids the user's recovery codes and stores these (their digests, 32 bytes each) in one step,
     * only while their second factor is on: false, and nothing stored, when it is off (turned off
     * meanwhile, for instance).
     */
    readonly replaceRecoveryCodes: (
      org: OrgId,
      id: UserId,
      digests: ReadonlyArray<Uint8Array>
    ) => Effect.Effect<boolean>
    /** The digests of the user's unused recovery codes. */
    readonly findRecoveryCodes: (org: OrgId, id: UserId) => Effect.Effect<ReadonlyArray<Uint8Array>>
    /**
     * Uses up the user's unused recovery code of that digest, in one step, and starts the factor's
     * wrong codes and locks again as a right code does (`useStep`): how many are left after it.
     * None when there is no such code (unknown, or used before, also by a use racing this one).
     */
    readonly useRecoveryCode: (org: OrgId, id: UserId, digest: Uint8Array) => Effect.Effect<Option.Option<number>>
    /**
     * Holds a sign-in that waits for its code, by the SHA-256 of its token, until `expiresAt`,
     * beside the user's others: a newer one does not cancel an older one (someone who has the
     * password must not be able to cancel the owner's sign-in), though past `maxHeldSignIns`
     * unexpired ones the oldest goes.
     */
    readonly holdSignIn: (org: OrgId, id: UserId, tokenHash: Uint8Array, expiresAt: DateTime.Utc) => Effect.Effect<void>
    /** Takes the held sign-in of that token if it has not expired at `now`: it is gone afterwards. */
    readonly takeSignIn: (tokenHash: Uint8Array, now: DateTime.Utc) => Effect.Effect<Option.Option<DashboardUser>>
  }
>()("core/DashboardUserStore") {}
