/**
 * `DashboardUserStore` in memory, over the memory world's `AccountsState`, for embedders and fast tests; it
 * passes the same contract as the PostgreSQL store (`test/contracts/DashboardUserStore.contract.ts`).
 * Invites and users belong to the state's organizations. Depends on effect and the core.
 */
import { DateTime, Effect, Layer, Option, type Redacted } from "effect"
import { SecureRandom } from "effect/crypto"
import { Hex } from "effect/encoding"
import { OrganizationNotFound } from "../../access/ports/ApiKeyStore.ts"
import type { OrgId, UserId } from "../../shared/domain/Ids.ts"
import { idKey, rowKey } from "../../shared/memory/Keys.ts"
import { OrganizationsState } from "../../shared/memory/OrganizationsState.ts"
import {
  type DashboardUser,
  DashboardUserStore,
  EmailTaken,
  type Invite,
  maxHeldSignIns,
  type NewInvite,
  type NewSecondFactor,
  type TeamChange,
  takesLastAdmin,
  type WrongCode
} from "../ports/DashboardUserStore.ts"
import { AccountsState } from "./AccountsState.ts"

export const layerMemory: Layer.Layer<DashboardUserStore, never, AccountsState | OrganizationsState> = Layer.effect(
  DashboardUserStore,
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

    /** The organization's user of that id, removed or not. */
    const userOf = (org: OrgId, id: UserId) =>
      [...byEmail.values()].find(
        (entry) => entry.user.id === id.toLowerCase() && entry.user.orgId === org.toLowerCase()
      )

    const takenElsewhere = (email: string, org: OrgId) => {
      const existing = byEmail.get(email)
      return existing !== undefined && existing.user.orgId !== org
    }

    const createInvite = Effect.fn("MemoryDashboardUserStore.createInvite")(function* (invite: NewInvite) {
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
        usedAt: null
      }
      invites.set(digest, stored)
      return stored
    })

    const findInvite = (tokenHash: Uint8Array) =>
      Effect.sync(() => Option.fromNullishOr(invites.get(Hex.encode(tokenHash))))

    const redeemInvite = Effect.fn("MemoryDashboardUserStore.redeemInvite")(function* (
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
      Effect.sync(() => Option.filter(Option.fromNullishOr(userOf(org, id)?.user), (user) => !isRemoved(user)))

    const membersOf = (org: OrgId) =>
      [...byEmail.values()]
        .filter((entry) => entry.user.orgId === org.toLowerCase())
        .map((entry) => ({
          ...entry.user,
          removedAt: removedUsers.get(userKey(entry.user.orgId, entry.user.id)) ?? null
        }))
        .sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0))

    const listUsers = (org: OrgId) => Effect.sync(() => membersOf(org))

    /** The organization's user of that id if not removed, or why the change cannot be made. */
    const changeable = (org: OrgId, id: UserId, becomes: DashboardUser["role"] | "removed") => {
      const found = userOf(org, id)
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

    const findPendingSecret = (org: OrgId, id: UserId) =>
      Effect.sync(() => Option.fromNullishOr(pendingSecrets.get(userKey(org, id))))

    const setPendingSecret = (org: OrgId, id: UserId, secret: Redacted.Redacted<string>) =>
      Effect.sync(() => {
        if (userOf(org, id) !== undefined) pendingSecrets.set(userKey(org, id), secret)
      })

    const findSecondFactor = (org: OrgId, id: UserId) =>
      Effect.sync(() => Option.fromNullishOr(secondFactors.get(userKey(org, id))))

    const setSecondFactor = (org: OrgId, id: UserId, factor: NewSecondFactor | null) =>
      Effect.sync(() => {
        if (factor === null) {
          secondFactors.delete(userKey(org, id))
          recoveryCodes.delete(userKey(org, id))
          return true
        }
        if (secondFactors.has(userKey(org, id))) return false
        pendingSecrets.delete(userKey(org, id))
        secondFactors.set(userKey(org, id), {
          ...factor,
          wrongCodes: 0,
          locks: 0,
          lockedUntil: null,
          lastWrongCode: null
        })
        return true
      })

    const useStep = (org: OrgId, id: UserId, step: number) =>
      Effect.sync(() => {
        const factor = secondFactors.get(userKey(org, id))
        if (factor === undefined || step <= factor.lastStep) return false
        secondFactors.set(userKey(org, id), { ...factor, lastStep: step, wrongCodes: 0, locks: 0 })
        return true
      })

    const countWrongCode = (org: OrgId, id: UserId, wrong: WrongCode, lockUntil: DateTime.Utc | null) =>
      Effect.sync(() => {
        const factor = secondFactors.get(userKey(org, id))
        if (factor === undefined) return
        secondFactors.set(
          userKey(org, id),
          lockUntil === null
            ? { ...factor, wrongCodes: factor.wrongCodes + 1, lastWrongCode: wrong }
            : { ...factor, wrongCodes: 0, locks: factor.locks + 1, lockedUntil: lockUntil, lastWrongCode: wrong }
        )
      })

    const replaceRecoveryCodes = (org: OrgId, id: UserId, digests: ReadonlyArray<Uint8Array>) =>
      Effect.sync(() => {
        if (!secondFactors.has(userKey(org, id))) return false
        recoveryCodes.set(userKey(org, id), new Map(digests.map((digest) => [Hex.encode(digest), digest])))
        return true
      })

    const findRecoveryCodes = (org: OrgId, id: UserId) =>
      Effect.sync(() => [...(recoveryCodes.get(userKey(org, id))?.values() ?? [])])

    const useRecoveryCode = (org: OrgId, id: UserId, digest: Uint8Array) =>
      Effect.sync(() => {
        const unused = recoveryCodes.get(userKey(org, id))
        if (unused === undefined || !unused.delete(Hex.encode(digest))) return Option.none<number>()
        const factor = secondFactors.get(userKey(org, id))
        if (factor !== undefined) secondFactors.set(userKey(org, id), { ...factor, wrongCodes: 0, locks: 0 })
        return Option.some(unused.size)
      })

    const holdSignIn = (org: OrgId, id: UserId, tokenHash: Uint8Array, expiresAt: DateTime.Utc) =>
      Effect.sync(() => {
        const key = userKey(org, id)
        heldSignIns.set(Hex.encode(tokenHash), { userKey: key, expiresAt })
        // Past the cap, the ones that expire first go (a map keeps the order of insertion).
        const own = [...heldSignIns].filter(([, held]) => held.userKey === key)
        own.sort(([, a], [, b]) => DateTime.toEpochMillis(a.expiresAt) - DateTime.toEpochMillis(b.expiresAt))
        for (const [digest] of own.slice(0, Math.max(0, own.length - maxHeldSignIns))) heldSignIns.delete(digest)
      })

    const takeSignIn = (tokenHash: Uint8Array, now: DateTime.Utc) =>
      Effect.sync(() => {
        const digest = Hex.encode(tokenHash)
        const held = heldSignIns.get(digest)
        heldSignIns.delete(digest)
        if (held === undefined || !DateTime.isLessThan(now, held.expiresAt)) return Option.none<DashboardUser>()
        return Option.fromNullishOr(
          [...byEmail.values()].find((entry) => userKey(entry.user.orgId, entry.user.id) === held.userKey)?.user
        )
      })

    return DashboardUserStore.of({
      createInvite,
      findInvite,
      redeemInvite,
      findByEmail,
      findUser,
      listUsers,
      changeRole,
      removeUser,
      findPendingSecret,
      setPendingSecret,
      findSecondFactor,
      setSecondFactor,
      useStep,
      countWrongCode,
      replaceRecoveryCodes,
      findRecoveryCodes,
      useRecoveryCode,
      holdSignIn,
      takeSignIn
    })
  })
)
