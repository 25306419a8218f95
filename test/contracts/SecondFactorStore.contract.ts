/**
 * The contract of the `SecondFactorStore` port, run against every implementation (the in-memory
 * twin, PostgreSQL), with its recovery codes' part (`SecondFactorStore.recoveryCodes.ts`): a
 * proposed secret kept until replaced or used, a user's secret and last accepted step, a step used
 * up once (also when two uses race), wrong codes counted and a lock that ends, a held sign-in taken
 * once, by its digest, before it expires, and all of it gone when an invite is redeemed for the
 * user. The layer provides the store, the `UserStore` its users come from and the `Organizations`
 * they belong to.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, type Layer, Option, Redacted } from "effect"
import { maxHeldSignIns, SecondFactorStore } from "../../core/accounts/ports/SecondFactorStore.ts"
import { UserStore } from "../../core/accounts/ports/UserStore.ts"
import type { OrgId, UserId } from "../../core/shared/domain/Ids.ts"
import type { Organizations } from "../../core/shared/ports/Organizations.ts"
import { digest, newUser } from "./DashboardUsers.setup.ts"

const secret = Redacted.make("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP")

export const describeSecondFactorStore = <E>(
  name: string,
  storeLayer: Layer.Layer<SecondFactorStore | UserStore | Organizations, E>
) =>
  layer(storeLayer, { excludeTestServices: true, timeout: 120_000 })(`SecondFactorStore contract (${name})`, (it) => {
    it.effect("a proposed secret is kept until it is replaced or a factor is turned on with it", () =>
      Effect.gen(function* () {
        const store = yield* SecondFactorStore
        const user = yield* newUser()
        assert.isTrue(Option.isNone(yield* store.findPendingSecret(user.orgId, user.id)))
        const first = Redacted.make("A".repeat(16) + "B".repeat(16))
        const second = Redacted.make("C".repeat(32))
        yield* store.setPendingSecret(user.orgId, user.id, first)
        assert.strictEqual(
          Redacted.value(Option.getOrThrow(yield* store.findPendingSecret(user.orgId, user.id))),
          Redacted.value(first)
        )
        yield* store.setPendingSecret(user.orgId, user.id, second)
        assert.strictEqual(
          Redacted.value(Option.getOrThrow(yield* store.findPendingSecret(user.orgId, user.id))),
          "C".repeat(32)
        )
        assert.isTrue(yield* store.setSecondFactor(user.orgId, user.id, { secret: second, lastStep: 1 }))
        assert.isTrue(Option.isNone(yield* store.findPendingSecret(user.orgId, user.id)))
      })
    )

    it.effect("a user's secret is found as set, in its organization only, until it is removed", () =>
      Effect.gen(function* () {
        const store = yield* SecondFactorStore
        const user = yield* newUser()
        const other = yield* newUser()
        assert.isTrue(Option.isNone(yield* store.findSecondFactor(user.orgId, user.id)))
        yield* store.setSecondFactor(user.orgId, user.id, { secret, lastStep: 59_000_000 })
        const found = Option.getOrThrow(yield* store.findSecondFactor(user.orgId, user.id))
        assert.strictEqual(Redacted.value(found.secret), Redacted.value(secret))
        assert.strictEqual(found.lastStep, 59_000_000)
        assert.isTrue(Option.isNone(yield* store.findSecondFactor(other.orgId, user.id)))
        assert.isTrue(Option.isNone(yield* store.findSecondFactor(user.orgId, randomUUID() as UserId)))
        assert.isTrue(Option.isNone(yield* store.findSecondFactor("not-a-uuid" as OrgId, user.id)))
        assert.isTrue(Option.isNone(yield* store.findSecondFactor(other.orgId, other.id)))
        yield* store.setSecondFactor(user.orgId, user.id, null)
        assert.isTrue(Option.isNone(yield* store.findSecondFactor(user.orgId, user.id)))
      })
    )

    it.effect("turns a second factor on only where none is, so that of two at once exactly one holds", () =>
      Effect.gen(function* () {
        const store = yield* SecondFactorStore
        const user = yield* newUser()
        const secrets = ["A", "B", "C", "D"].map((letter) => Redacted.make(letter.repeat(32)))
        const won = yield* Effect.all(
          secrets.map((each) => store.setSecondFactor(user.orgId, user.id, { secret: each, lastStep: 7 })),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(won.filter(Boolean).length, 1)
        const kept = Redacted.value(Option.getOrThrow(yield* store.findSecondFactor(user.orgId, user.id)).secret)
        assert.strictEqual(kept, Redacted.value(secrets[won.indexOf(true)]!))
        assert.isFalse(yield* store.setSecondFactor(user.orgId, user.id, { secret, lastStep: 8 }))
        assert.isTrue(yield* store.setSecondFactor(user.orgId, user.id, null))
        assert.isTrue(yield* store.setSecondFactor(user.orgId, user.id, { secret, lastStep: 8 }))
      })
    )

    it.effect("counts wrong codes in a row for the user alone, from 0 when turned on and after a right one", () =>
      Effect.gen(function* () {
        const store = yield* SecondFactorStore
        const user = yield* newUser()
        const other = yield* newUser()
        const wrong = { at: yield* DateTime.now, clientAddress: "198.51.100.7" }
        const wrongCodes = (who: typeof user) =>
          Effect.map(store.findSecondFactor(who.orgId, who.id), (found) => Option.getOrThrow(found).wrongCodes)
        yield* store.setSecondFactor(user.orgId, user.id, { secret, lastStep: 10 })
        yield* store.setSecondFactor(other.orgId, other.id, { secret, lastStep: 10 })
        assert.strictEqual(yield* wrongCodes(user), 0)
        yield* store.countWrongCode(user.orgId, user.id, wrong, null)
        yield* store.countWrongCode(user.orgId, user.id, wrong, null)
        yield* store.countWrongCode(other.orgId, user.id, wrong, null)
        assert.deepStrictEqual([yield* wrongCodes(user), yield* wrongCodes(other)], [2, 0])
        assert.isTrue(yield* store.useStep(user.orgId, user.id, 11))
        assert.strictEqual(yield* wrongCodes(user), 0)
        yield* store.countWrongCode(user.orgId, user.id, wrong, null)
        yield* store.setSecondFactor(user.orgId, user.id, null)
        yield* store.setSecondFactor(user.orgId, user.id, { secret, lastStep: 12 })
        assert.strictEqual(yield* wrongCodes(user), 0)
      })
    )

    it.effect(
      "a wrong code with a lock locks until then and starts the count again; the latest wrong code is kept",
      () =>
        Effect.gen(function* () {
          const store = yield* SecondFactorStore
          const user = yield* newUser()
          const now = yield* DateTime.now
          const factor = Effect.map(store.findSecondFactor(user.orgId, user.id), Option.getOrThrow)
          yield* store.setSecondFactor(user.orgId, user.id, { secret, lastStep: 10 })
          const fresh = yield* factor
          assert.deepStrictEqual([fresh.locks, fresh.lockedUntil, fresh.lastWrongCode], [0, null, null])

          const first = { at: now, clientAddress: "198.51.100.7" }
          const until = DateTime.addDuration(now, Duration.minutes(15))
          yield* store.countWrongCode(user.orgId, user.id, first, null)
          yield* store.countWrongCode(user.orgId, user.id, { at: now, clientAddress: null }, until)
          const locked = yield* factor
          assert.deepStrictEqual([locked.wrongCodes, locked.locks], [0, 1])
          assert.strictEqual(DateTime.toEpochMillis(locked.lockedUntil!), DateTime.toEpochMillis(until))
          assert.strictEqual(locked.lastWrongCode?.clientAddress, null)

          const later = { at: DateTime.addDuration(now, Duration.minutes(20)), clientAddress: "2001:db8::1" }
          yield* store.countWrongCode(user.orgId, user.id, later, null)
          const counted = yield* factor
          assert.deepStrictEqual([counted.wrongCodes, counted.locks], [1, 1])
          assert.strictEqual(DateTime.toEpochMillis(counted.lockedUntil!), DateTime.toEpochMillis(until), "kept")
          assert.strictEqual(DateTime.toEpochMillis(counted.lastWrongCode!.at), DateTime.toEpochMillis(later.at))
          assert.strictEqual(counted.lastWrongCode?.clientAddress, "2001:db8::1")

          assert.isTrue(yield* store.useStep(user.orgId, user.id, 11))
          const right = yield* factor
          assert.deepStrictEqual(
            [right.wrongCodes, right.locks, right.lastWrongCode?.clientAddress],
            [0, 0, "2001:db8::1"]
          )

          yield* store.setSecondFactor(user.orgId, user.id, null)
          yield* store.setSecondFactor(user.orgId, user.id, { secret, lastStep: 12 })
          const again = yield* factor
          assert.deepStrictEqual([again.locks, again.lockedUntil, again.lastWrongCode], [0, null, null])
        })
    )

    it.effect("a new invite redeemed for the user removes its second factor and its held sign-in", () =>
      Effect.gen(function* () {
        const store = yield* SecondFactorStore
        const user = yield* newUser()
        const now = yield* DateTime.now
        const heldHash = digest()
        yield* store.setSecondFactor(user.orgId, user.id, { secret, lastStep: 1 })
        yield* store.holdSignIn(user.orgId, user.id, heldHash, DateTime.addDuration(now, Duration.minutes(5)))
        const inviteHash = digest()
        const expiresAt = DateTime.addDuration(now, Duration.hours(1))
        const users = yield* UserStore
        yield* users.createInvite({
          orgId: user.orgId,
          email: user.email,
          role: user.role,
          tokenHash: inviteHash,
          expiresAt
        })
        assert.isTrue(Option.isSome(yield* users.redeemInvite(inviteHash, "new-hash", now)))
        assert.isTrue(Option.isNone(yield* store.findSecondFactor(user.orgId, user.id)))
        assert.isTrue(Option.isNone(yield* store.takeSignIn(heldHash, now)))
      })
    )

    it.effect("a step is used once and only after the last used one, also when two uses race", () =>
      Effect.gen(function* () {
        const store = yield* SecondFactorStore
        const user = yield* newUser()
        assert.isFalse(yield* store.useStep(user.orgId, user.id, 100), "no factor, no step")
        yield* store.setSecondFactor(user.orgId, user.id, { secret, lastStep: 100 })
        assert.isFalse(yield* store.useStep(user.orgId, user.id, 100))
        assert.isFalse(yield* store.useStep(user.orgId, user.id, 99))
        const raced = yield* Effect.all(
          [store.useStep(user.orgId, user.id, 101), store.useStep(user.orgId, user.id, 101)],
          {
            concurrency: "unbounded"
          }
        )
        assert.deepStrictEqual(
          raced.filter((used) => used),
          [true]
        )
        assert.strictEqual(Option.getOrThrow(yield* store.findSecondFactor(user.orgId, user.id)).lastStep, 101)
        const other = yield* newUser()
        assert.isFalse(yield* store.useStep(other.orgId, user.id, 200), "another organization's id is no user")
      })
    )

    it.effect("a held sign-in is taken once before it expires; a newer one cancels no older one, up to the cap", () =>
      Effect.gen(function* () {
        const store = yield* SecondFactorStore
        const user = yield* newUser()
        const now = yield* DateTime.now
        const expiresAt = DateTime.addDuration(now, Duration.minutes(5))
        const first = digest()
        const second = digest()
        yield* store.holdSignIn(user.orgId, user.id, first, expiresAt)
        yield* store.holdSignIn(user.orgId, user.id, second, expiresAt)
        // Someone with the password signing in again does not cancel the owner's waiting sign-in.
        assert.strictEqual(Option.getOrThrow(yield* store.takeSignIn(first, now)).id, user.id, "not replaced")
        assert.strictEqual(Option.getOrThrow(yield* store.takeSignIn(second, now)).id, user.id)
        assert.isTrue(Option.isNone(yield* store.takeSignIn(second, now)), "taken already")

        const late = digest()
        yield* store.holdSignIn(user.orgId, user.id, late, expiresAt)
        assert.isTrue(Option.isNone(yield* store.takeSignIn(late, expiresAt)), "expired")
        assert.isTrue(Option.isNone(yield* store.takeSignIn(late, now)), "tried once, then gone")
        assert.isTrue(Option.isNone(yield* store.takeSignIn(digest(), now)))

        // Past the cap, the one that expires first goes, and only it.
        const held = Array.from({ length: maxHeldSignIns + 1 }, () => digest())
        for (const [i, hash] of held.entries()) {
          yield* store.holdSignIn(user.orgId, user.id, hash, DateTime.addDuration(now, Duration.seconds(60 + i)))
        }
        assert.isTrue(Option.isNone(yield* store.takeSignIn(held[0]!, now)), "the oldest went")
        for (const hash of held.slice(1)) assert.isTrue(Option.isSome(yield* store.takeSignIn(hash, now)))
      })
    )
  })
