/**
 * The organization's dashboard users as its admins manage them (and operators, from the CLI):
 * invite, change a role, remove. A role change or a removal ends all of the user's sessions, so
 * it holds from their next request on, and the organization always keeps one admin. Admins'
 * changes are recorded in the `DashboardAuditLog`. Depends on effect and the core alone.
 */
import { Context, DateTime, Effect, Layer, type Redacted, Schema } from "effect"
import type { OrganizationNotFound } from "../../access/ports/ApiKeyStore.ts"
import type { Role } from "../../accounts/domain/Dashboard.ts"
import { SessionStore } from "../../accounts/ports/SessionStore.ts"
import {
  type EmailTaken,
  type Invite,
  type TeamChange,
  type TeamMember,
  UserStore
} from "../../accounts/ports/UserStore.ts"
import { Accounts, type Actor, type InvalidEmail } from "../../accounts/services/Accounts.ts"
import type { OrgId } from "../../shared/domain/Ids.ts"
import { NotPermitted } from "./KeyAdministration.ts"

/** Not a user of the organization (or one already removed). */
export class UserNotFound extends Schema.TaggedError<UserNotFound>()("UserNotFound", {}) {}

/** The change would leave the organization without an admin, and nobody could manage it. */
export class LastAdmin extends Schema.TaggedError<LastAdmin>()("LastAdmin", {}) {}

/** No invite of that address is pending in the organization (used, expired, revoked or never made). */
export class InviteNotFound extends Schema.TaggedError<InviteNotFound>()("InviteNotFound", {}) {}

export class Team extends Context.Service<
  Team,
  {
    /** The organization's users (admins only), removed ones included. */
    readonly members: (actor: Actor) => Effect.Effect<ReadonlyArray<TeamMember>, NotPermitted>
    readonly invite: (
      actor: Actor,
      email: string,
      role: Role
    ) => Effect.Effect<
      { readonly token: Redacted.Redacted<string>; readonly invite: Invite },
      NotPermitted | EmailTaken | InvalidEmail
    >
    /** The organization's invites still usable (admins only). */
    readonly pendingInvites: (actor: Actor) => Effect.Effect<ReadonlyArray<Invite>, NotPermitted>
    /** Voids the organization's pending invites of the address; `InviteNotFound` when there is none. */
    readonly revokeInvite: (actor: Actor, email: string) => Effect.Effect<void, NotPermitted | InviteNotFound>
    readonly changeRole: (
      actor: Actor,
      userId: string,
      role: Role
    ) => Effect.Effect<void, NotPermitted | UserNotFound | LastAdmin>
    readonly remove: (actor: Actor, userId: string) => Effect.Effect<void, NotPermitted | UserNotFound | LastAdmin>
    /** The operator's way, by address; nothing is recorded in the dashboard's audit log. */
    readonly changeRoleByEmail: (org: OrgId, email: string, role: Role) => Effect.Effect<void, UserNotFound | LastAdmin>
    readonly removeByEmail: (org: OrgId, email: string) => Effect.Effect<void, UserNotFound | LastAdmin>
  }
>()("core/Team") {
  static readonly layer = Layer.effect(
    Team,
    Effect.gen(function* () {
      const users = yield* UserStore
      const sessions = yield* SessionStore
      const access = yield* Accounts

      const adminOnly = (actor: Actor, action: string) =>
        actor.user.role === "admin" ? Effect.void : Effect.fail(new NotPermitted({ action }))

      /** The organization's user of that id or address, not removed. */
      const target = Effect.fnUntraced(function* (org: OrgId, matches: (member: TeamMember) => boolean) {
        const members = yield* users.listUsers(org)
        const found = members.find((member) => member.removedAt === null && matches(member))
        return found === undefined ? yield* new UserNotFound() : found
      })

      const applied = (change: TeamChange) =>
        change === "done"
          ? Effect.void
          : change === "missing"
            ? Effect.fail(new UserNotFound())
            : Effect.fail(new LastAdmin())

      // The store checks that an admin is left and makes the change in one step; then the sessions
      // end: a request between the two already reads the new role (every request reads the user
      // again); none after it finds a session.
      const applyRole = (org: OrgId, member: TeamMember, role: Role) =>
        Effect.gen(function* () {
          yield* applied(yield* users.changeRole(org, member.id, role))
          yield* sessions.removeAllOfUser(org, member.id, "role_changed", yield* DateTime.now)
        })

      const applyRemoval = (org: OrgId, member: TeamMember) =>
        Effect.gen(function* () {
          const now = yield* DateTime.now
          yield* applied(yield* users.removeUser(org, member.id, now))
          yield* sessions.removeAllOfUser(org, member.id, "removed", now)
        })

      const sameId = (id: string) => (member: TeamMember) => member.id === id.toLowerCase()
      const sameEmail = (email: string) => (member: TeamMember) => member.email === email.trim().toLowerCase()

      const members = Effect.fn("Team.members")(function* (actor: Actor) {
        yield* adminOnly(actor, "manage the team")
        return yield* users.listUsers(actor.user.orgId)
      })

      const invite = Effect.fn("Team.invite")(function* (actor: Actor, email: string, role: Role) {
        yield* adminOnly(actor, "invite users")
        // The user's organization exists for as long as the user does.
        const made = yield* access
          .invite(actor.user.orgId, email, role, actor.user)
          .pipe(Effect.catchTag("OrganizationNotFound", (missing: OrganizationNotFound) => Effect.die(missing)))
        yield* access.record(actor, "user_invited", `${made.invite.email} (${role})`)
        return made
      })

      const pendingInvites = Effect.fn("Team.pendingInvites")(function* (actor: Actor) {
        yield* adminOnly(actor, "manage the team")
        return yield* users.pendingInvites(actor.user.orgId, yield* DateTime.now)
      })

      const revokeInvite = Effect.fn("Team.revokeInvite")(function* (actor: Actor, email: string) {
        yield* adminOnly(actor, "revoke invites")
        const address = email.trim().toLowerCase()
        if (!(yield* users.revokeInvites(actor.user.orgId, address, yield* DateTime.now))) {
          return yield* new InviteNotFound()
        }
        yield* access.record(actor, "invite_revoked", address)
      })

      const changeRole = Effect.fn("Team.changeRole")(function* (actor: Actor, userId: string, role: Role) {
        yield* adminOnly(actor, "change roles")
        const member = yield* target(actor.user.orgId, sameId(userId))
        if (member.role === role) return
        yield* applyRole(actor.user.orgId, member, role)
        yield* access.record(actor, "role_changed", member.id)
      })

      const remove = Effect.fn("Team.remove")(function* (actor: Actor, userId: string) {
        yield* adminOnly(actor, "remove users")
        const member = yield* target(actor.user.orgId, sameId(userId))
        yield* applyRemoval(actor.user.orgId, member)
        yield* access.record(actor, "user_removed", member.id)
      })

      const changeRoleByEmail = Effect.fn("Team.changeRoleByEmail")(function* (org: OrgId, email: string, role: Role) {
        const member = yield* target(org, sameEmail(email))
        if (member.role !== role) yield* applyRole(org, member, role)
      })

      const removeByEmail = Effect.fn("Team.removeByEmail")(function* (org: OrgId, email: string) {
        yield* applyRemoval(org, yield* target(org, sameEmail(email)))
      })

      return Team.of({
        members,
        invite,
        pendingInvites,
        revokeInvite,
        changeRole,
        remove,
        changeRoleByEmail,
        removeByEmail
      })
    })
  )
}
