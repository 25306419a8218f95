/**
 * `UserStore` in memory, over the memory world's `AccountsState`, for embedders and fast tests; it
 * passes the same contract as the PostgreSQL store (`test/contracts/UserStore.contract.ts`).
 * Invites and users belong to the state's organizations; redeeming an invite and removing a user
 * clear the second-factor tables the memory `SecondFactorStore` keeps, as one step does in
 * PostgreSQL. Depends on effect and the core.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { SecureRandom } from "effect/crypto"
import { Hex } from "effect/encoding"
import { OrganizationNotFound } from "../../access/ports/ApiKeyStore.ts"
import type { OrgId, UserId } from "../../shared/domain/Ids.ts"
import { idKey, rowKey } from "../../shared/memory/Keys.ts"
import { OrganizationsState } from "../../shared/memory/OrganizationsState.ts"
import {
  type DashboardUser,
  EmailTaken,
  type Invite,
  type NewInvite,
  type TeamChange,
  takesLastAdmin,
  UserStore
} from "../ports/UserStore.ts"
import { AccountsState, userOf } from "./AccountsState.ts"

export const layerMemory: Layer.Layer<UserStore, never, AccountsState | OrganizationsState> = Layer.effect(
  UserStore,
  Effect.gen(function* () {
    const tables = yield* AccountsState
    const { organizations } = yield* OrganizationsState
    const { invites, users: byEmail, secondFactors, heldSignIns, removedUsers, pendingSecrets, recoveryCodes } = tables
    const userKey = (org: OrgId, id: UserId) => rowKey(org, id)
    const isRemoved = (user: DashboardUser) => removedUsers.has(userKey(user.orgId, user.id))

    /** Marks the organization's unused invites of the address used at `now`. */
    const voidInvites = (org: OrgId, email: string, now: DateTime.Utc) => {
      for (const [digest, pending] of invites) {
        if (pending.orgId === org && pending.email === email && pending.usedAt === null) {
          invites.set(digest, { ...pending, usedAt: now })
        }
      }
    }

    const takenElsewhere = (email: string, org: OrgId) => {
      const existing = byEmail.get(email)
      return existing !== undefined && existing.user.orgId !== org
    }

    const createInvite = Effect.fn("MemoryUserStore.createInvite")(function* (invite: NewInvite) {
      const found = organizations.get(idKey(invite.orgId))
      if (found === undefined) return yield* new OrganizationNotFound({ id: invite.orgId })
      const orgId = found.id
      if (takenElsewhere(invite.email, orgId)) return yield* new EmailTaken({ email: invite.email })
      const digest = Hex.encode(invite.tokenHash)
      if (invites.has(digest)) return yield* Effect.die(new Error("an invite with this digest is already stored"))
      const now = yield* DateTime.now
      voidInvites(orgId, invite.email, now)
      const stored: Invite = {
        orgId,
        email: invite.email,
        role: invite.role,
        createdAt: now,
        expiresAt: invite.expiresAt,
        usedAt: null,
        invitedBy: invite.invitedBy?.email ?? null
      }
      invites.set(digest, stored)
      return stored
    })

    const findInvite = (tokenHash: Uint8Array) =>
      Effect.sync(() => Option.fromNullishOr(invites.get(Hex.encode(tokenHash))))

    const redeemInvite = Effect.fn("MemoryUserStore.redeemInvite")(function* (
      tokenHash: Uint8Array,
      passwordHash: string,
      now: DateTime.Utc
    ) {
      const digest = Hex.encode(tokenHash)
      const invite = invites.get(digest)
      if (invite === undefined || invite.usedAt !== null || !DateTime.isLessThan(now, invite.expiresAt)) {
        return Option.none<DashboardUser>()
      }
      if (takenElsewhere(invite.email, invite.orgId)) return yield* new EmailTaken({ email: invite.email })
      const existing = byEmail.get(invite.email)
      // As a role change: never taking away the last admin, who stays one with the new password.
      const keepsAdmin =
        existing !== undefined &&
        !isRemoved(existing.user) &&
        takesLastAdmin(membersOf(invite.orgId), existing.user.id, invite.role)
      const user: DashboardUser = {
        id: existing?.user.id ?? (SecureRandom.uuidV4Unsafe() as UserId),
        orgId: invite.orgId,
        email: invite.email,
        role: keepsAdmin ? "admin" : invite.role,
        createdAt: existing?.user.createdAt ?? now
      }
      // The address's older links stop working: the password is now the one just set.
      voidInvites(invite.orgId, invite.email, now)
      byEmail.set(invite.email, { user, passwordHash })
      // A new invite is how an operator lets in someone who lost their password or second factor,
      // or lets a removed user in again.
      secondFactors.delete(userKey(user.orgId, user.id))
      recoveryCodes.delete(userKey(user.orgId, user.id))
      pendingSecrets.delete(userKey(user.orgId, user.id))
      removedUsers.delete(userKey(user.orgId, user.id))
      for (const [digest, held] of heldSignIns)
        if (held.userKey === userKey(user.orgId, user.id)) heldSignIns.delete(digest)
      return Option.some(user)
    })

    const findByEmail = (email: string) =>
      Effect.sync(() => Option.filter(Option.fromNullishOr(byEmail.get(email)), (found) => !isRemoved(found.user)))

    const findUser = (org: OrgId, id: UserId) =>
      Effect.sync(() => Option.filter(Option.fromNullishOr(userOf(tables, org, id)?.user), (user) => !isRemoved(user)))

    const membersOf = (org: OrgId) =>
      [...byEmail.values()]
        .filter((entry) => entry.user.orgId === org.toLowerCase())
        .map((entry) => ({
          ...entry.user,
          removedAt: removedUsers.get(userKey(entry.user.orgId, entry.user.id)) ?? null,
          secondFactor: secondFactors.has(userKey(entry.user.orgId, entry.user.id))
        }))
        .sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0))

    const listUsers = (org: OrgId) => Effect.sync(() => membersOf(org))

    const isPending = (invite: Invite, org: OrgId, now: DateTime.Utc) =>
      invite.orgId === org.toLowerCase() && invite.usedAt === null && DateTime.isGreaterThan(invite.expiresAt, now)

    const pendingInvites = (org: OrgId, now: DateTime.Utc) =>
      Effect.sync(() =>
        [...invites.values()]
          .filter((invite) => isPending(invite, org, now))
          .sort((a, b) =>
            a.email !== b.email
              ? a.email < b.email
                ? -1
                : 1
              : DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt)
          )
      )

    const revokeInvites = (org: OrgId, email: string, now: DateTime.Utc) =>
      Effect.sync(() => {
        let revoked = false
        for (const [digest, invite] of invites) {
          if (invite.email === email && isPending(invite, org, now)) {
            invites.set(digest, { ...invite, usedAt: now })
            revoked = true
          }
        }
        return revoked
      })

    /** The organization's user of that id if not removed, or why the change cannot be made. */
    const changeable = (org: OrgId, id: UserId, becomes: DashboardUser["role"] | "removed") => {
      const found = userOf(tables, org, id)
      if (found === undefined || isRemoved(found.user)) return "missing" as const
      return takesLastAdmin(membersOf(found.user.orgId), found.user.id, becomes) ? ("last_admin" as const) : found
    }

    const changeRole = (org: OrgId, id: UserId, role: DashboardUser["role"]) =>
      Effect.sync((): TeamChange => {
        const found = changeable(org, id, role)
        if (typeof found === "string") return found
        byEmail.set(found.user.email, { ...found, user: { ...found.user, role } })
        return "done"
      })

    const removeUser = (org: OrgId, id: UserId, now: DateTime.Utc) =>
      Effect.sync((): TeamChange => {
        const found = changeable(org, id, "removed")
        if (typeof found === "string") return found
        const key = userKey(found.user.orgId, found.user.id)
        removedUsers.set(key, now)
        pendingSecrets.delete(key)
        for (const [digest, held] of heldSignIns) if (held.userKey === key) heldSignIns.delete(digest)
        voidInvites(found.user.orgId, found.user.email, now)
        return "done"
      })

    return UserStore.of({
      createInvite,
      findInvite,
      redeemInvite,
      findByEmail,
      findUser,
      listUsers,
      pendingInvites,
      revokeInvites,
      changeRole,
      removeUser
    })
  })
)
