/**
 * `SecondFactorStore` in memory, over the memory world's `AccountsState`, for embedders and fast
 * tests; it passes the same contract as the PostgreSQL store
 * (`test/contracts/SecondFactorStore.contract.ts`). Factors, proposed secrets, recovery codes and
 * held sign-ins are keyed by their user, whom the memory `UserStore` keeps in the same state.
 * Depends on effect and the core.
 */
import { DateTime, Effect, Layer, Option, type Redacted } from "effect"
import { Hex } from "effect/encoding"
import type { OrgId, UserId } from "../../shared/domain/Ids.ts"
import { rowKey } from "../../shared/memory/Keys.ts"
import { maxHeldSignIns, type NewSecondFactor, SecondFactorStore, type WrongCode } from "../ports/SecondFactorStore.ts"
import type { DashboardUser } from "../ports/UserStore.ts"
import { AccountsState, userOf } from "./AccountsState.ts"

export const layerMemory: Layer.Layer<SecondFactorStore, never, AccountsState> = Layer.effect(
  SecondFactorStore,
  Effect.gen(function* () {
    const tables = yield* AccountsState
    const { users: byEmail, secondFactors, heldSignIns, pendingSecrets, recoveryCodes } = tables
    const userKey = (org: OrgId, id: UserId) => rowKey(org, id)

    const findPendingSecret = (org: OrgId, id: UserId) =>
      Effect.sync(() => Option.fromNullishOr(pendingSecrets.get(userKey(org, id))))

    const setPendingSecret = (org: OrgId, id: UserId, secret: Redacted.Redacted<string>) =>
      Effect.sync(() => {
        if (userOf(tables, org, id) !== undefined) pendingSecrets.set(userKey(org, id), secret)
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

    return SecondFactorStore.of({
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
