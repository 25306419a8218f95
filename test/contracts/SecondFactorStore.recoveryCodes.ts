/**
 * The recovery codes' part of the `SecondFactorStore` contract, run against every implementation
 * beside the rest of it: a set stored only while the factor is on, each code used once (also when
 * uses race), a new set voiding the old, and the codes gone with the factor or a redeemed invite.
 * Digests are random bytes, as good as a code's SHA-256.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, type Layer, Option, Redacted } from "effect"
import { SecondFactorStore } from "../../core/accounts/ports/SecondFactorStore.ts"
import { UserStore } from "../../core/accounts/ports/UserStore.ts"
import type { OrgId, UserId } from "../../core/shared/domain/Ids.ts"
import type { Organizations } from "../../core/shared/ports/Organizations.ts"
import { digest, newUser } from "./DashboardUsers.setup.ts"

const secret = Redacted.make("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP")
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")
const sorted = (digests: ReadonlyArray<Uint8Array>) => digests.map(hex).sort()

/** A user whose factor is on, with ten codes; the codes' digests. */
const withCodes = Effect.gen(function* () {
  const store = yield* SecondFactorStore
  const user = yield* newUser()
  yield* store.setSecondFactor(user.orgId, user.id, { secret, lastStep: 10 })
  const digests = Array.from({ length: 10 }, digest)
  assert.isTrue(yield* store.replaceRecoveryCodes(user.orgId, user.id, digests))
  return { user, digests }
})

export const describeRecoveryCodeStore = <E>(
  name: string,
  storeLayer: Layer.Layer<SecondFactorStore | UserStore | Organizations, E>
) =>
  layer(storeLayer, { excludeTestServices: true, timeout: 120_000 })(
    `SecondFactorStore recovery codes (${name})`,
    (it) => {
      it.effect("stores a set only while the factor is on, and finds it in the user's organization only", () =>
        Effect.gen(function* () {
          const store = yield* SecondFactorStore
          const off = yield* newUser()
          assert.isFalse(yield* store.replaceRecoveryCodes(off.orgId, off.id, [digest()]))
          assert.deepStrictEqual(yield* store.findRecoveryCodes(off.orgId, off.id), [])

          const { user, digests } = yield* withCodes
          const other = yield* newUser()
          assert.deepStrictEqual(sorted(yield* store.findRecoveryCodes(user.orgId, user.id)), sorted(digests))
          assert.deepStrictEqual(yield* store.findRecoveryCodes(other.orgId, user.id), [])
          assert.deepStrictEqual(yield* store.findRecoveryCodes("not-a-uuid" as OrgId, user.id), [])
          assert.isTrue(Option.isNone(yield* store.useRecoveryCode(other.orgId, user.id, digests[0]!)))
          assert.isTrue(Option.isNone(yield* store.useRecoveryCode(user.orgId, randomUUID() as UserId, digests[0]!)))
          assert.strictEqual((yield* store.findRecoveryCodes(user.orgId, user.id)).length, 10, "none was used")
        })
      )

      it.effect("a code is used once, and each use says how many are left", () =>
        Effect.gen(function* () {
          const store = yield* SecondFactorStore
          const { user, digests } = yield* withCodes
          assert.deepStrictEqual(yield* store.useRecoveryCode(user.orgId, user.id, digests[3]!), Option.some(9))
          assert.isTrue(Option.isNone(yield* store.useRecoveryCode(user.orgId, user.id, digests[3]!)))
          assert.isTrue(Option.isNone(yield* store.useRecoveryCode(user.orgId, user.id, digest())))
          assert.deepStrictEqual(yield* store.useRecoveryCode(user.orgId, user.id, digests[0]!), Option.some(8))
          assert.deepStrictEqual(
            sorted(yield* store.findRecoveryCodes(user.orgId, user.id)),
            sorted(digests.filter((_, i) => i !== 0 && i !== 3))
          )
        })
      )

      it.effect("of uses of one code at once, exactly one succeeds", () =>
        Effect.gen(function* () {
          const store = yield* SecondFactorStore
          const { user, digests } = yield* withCodes
          const uses = yield* Effect.all(
            Array.from({ length: 8 }, () => store.useRecoveryCode(user.orgId, user.id, digests[5]!)),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(uses.filter(Option.isSome), [Option.some(9)])
        })
      )

      it.effect("a right recovery code starts the wrong codes and the locks again", () =>
        Effect.gen(function* () {
          const store = yield* SecondFactorStore
          const { user, digests } = yield* withCodes
          const now = yield* DateTime.now
          yield* store.countWrongCode(user.orgId, user.id, { at: now, clientAddress: null }, null)
          yield* store.countWrongCode(
            user.orgId,
            user.id,
            { at: now, clientAddress: null },
            DateTime.addDuration(now, Duration.minutes(15))
          )
          yield* store.countWrongCode(user.orgId, user.id, { at: now, clientAddress: null }, null)
          yield* store.useRecoveryCode(user.orgId, user.id, digests[0]!)
          const factor = Option.getOrThrow(yield* store.findSecondFactor(user.orgId, user.id))
          assert.deepStrictEqual([factor.wrongCodes, factor.locks], [0, 0])
        })
      )

      it.effect("a new set voids the old one", () =>
        Effect.gen(function* () {
          const store = yield* SecondFactorStore
          const { user, digests } = yield* withCodes
          const fresh = Array.from({ length: 10 }, digest)
          assert.isTrue(yield* store.replaceRecoveryCodes(user.orgId, user.id, fresh))
          assert.isTrue(Option.isNone(yield* store.useRecoveryCode(user.orgId, user.id, digests[0]!)))
          assert.deepStrictEqual(sorted(yield* store.findRecoveryCodes(user.orgId, user.id)), sorted(fresh))
          assert.deepStrictEqual(yield* store.useRecoveryCode(user.orgId, user.id, fresh[0]!), Option.some(9))
        })
      )

      it.effect("turning the factor off deletes the codes, and so does a redeemed invite", () =>
        Effect.gen(function* () {
          const store = yield* SecondFactorStore
          const { user, digests } = yield* withCodes
          yield* store.setSecondFactor(user.orgId, user.id, null)
          assert.deepStrictEqual(yield* store.findRecoveryCodes(user.orgId, user.id), [])
          yield* store.setSecondFactor(user.orgId, user.id, { secret, lastStep: 11 })
          assert.isTrue(Option.isNone(yield* store.useRecoveryCode(user.orgId, user.id, digests[0]!)), "not back")

          yield* store.replaceRecoveryCodes(user.orgId, user.id, digests)
          const now = yield* DateTime.now
          const tokenHash = digest()
          const users = yield* UserStore
          yield* users.createInvite({
            orgId: user.orgId,
            email: user.email,
            role: user.role,
            tokenHash,
            expiresAt: DateTime.addDuration(now, Duration.hours(1))
          })
          yield* users.redeemInvite(tokenHash, "scrypt$new", now)
          assert.deepStrictEqual(yield* store.findRecoveryCodes(user.orgId, user.id), [])
        }).pipe(Effect.orDie)
      )
    }
  )
