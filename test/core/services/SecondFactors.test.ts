/**
 * The second factor's policy on the in-memory twins, with virtual time and codes computed by the
 * `otpauth` library for the clock's instant: turning it on with a code and off with the password
 * and a code, a sign-in held until its code, a code accepted once, one step of drift either way
 * and not two, wrong codes throttled and audited, and the secret never in the audit log.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, DateTime, Duration, Effect, Exit, Layer, Option, Redacted } from "effect"
import { Digest, SecureRandom } from "effect/crypto"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import * as OTPAuth from "otpauth"
import * as ScryptPasswordHasher from "../../../adapters/passwords/ScryptPasswordHasher.ts"
import * as ShippedCommonPasswords from "../../../adapters/passwords/ShippedCommonPasswords.ts"
import * as OtpauthCodes from "../../../adapters/totp/OtpauthCodes.ts"
import { pairThrottle } from "../../../core/accounts/domain/Dashboard.ts"
import { layerMemory as AuditMemory } from "../../../core/accounts/memory/DashboardAuditLog.ts"
import { layerMemory as FactorsMemory } from "../../../core/accounts/memory/SecondFactorStore.ts"
import { layerMemory as SessionsMemory } from "../../../core/accounts/memory/SessionStore.ts"
import * as MemorySignInThrottleStore from "../../../core/accounts/memory/SignInThrottleStore.ts"
import { layerMemory as UsersMemory } from "../../../core/accounts/memory/UserStore.ts"
import { DashboardAuditLog } from "../../../core/accounts/ports/DashboardAuditLog.ts"
import { Accounts } from "../../../core/accounts/services/Accounts.ts"
import {
  firstLock,
  heldSignInLifetime,
  lockLength,
  longestLock,
  maxWrongCodes,
  SecondFactors,
  stepMillis
} from "../../../core/accounts/services/SecondFactors.ts"
import { states as memoryStates } from "../../../core/memory/MemoryStorage.ts"
import * as MemoryOrganizations from "../../../core/shared/memory/Organizations.ts"
import { Organizations } from "../../../core/shared/ports/Organizations.ts"

const Services = Accounts.layer.pipe(
  Layer.provideMerge(SecondFactors.layer),
  Layer.provideMerge(Layer.mergeAll(UsersMemory, FactorsMemory, SessionsMemory, AuditMemory, OtpauthCodes.layer)),
  Layer.provideMerge(MemoryOrganizations.layerMemory),
  Layer.provide([
    memoryStates,
    MemorySignInThrottleStore.layerOwnState(),
    MemorySignInThrottleStore.layerStandIn(),
    ScryptPasswordHasher.layerTest,
    ShippedCommonPasswords.layer,
    Digest.layerWebCrypto,
    SecureRandom.layerWebCrypto
  ])
)

const password = Redacted.make("correct horse battery")
const address = "198.51.100.4"
/** A fixed instant in the middle of a 30-second step. */
const start = 1_800_000_015_000
const startStep = Math.floor(start / stepMillis)

const codeAt = (secret: Redacted.Redacted<string>, step: number) =>
  OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(Redacted.value(secret)), timestamp: step * stepMillis })

/** A well-formed code that no step within the drift of `step` has: wrong for certain. */
const wrongAt = (secret: Redacted.Redacted<string>, step: number) =>
  ["000000", "111111", "222222", "333333"].find(
    (text) => ![-1, 0, 1].some((offset) => codeAt(secret, step + offset) === text)
  )!

const refusal = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.exit(effect), (exit) =>
    Option.getOrNull(Option.map(Exit.findErrorOption(exit), (error) => error._tag))
  )

/** A member with the second factor on, confirmed by the code of the step before the current one. */
const enrolled = Effect.gen(function* () {
  yield* TestClock.setTime(start)
  const access = yield* Accounts
  const twoFactor = yield* SecondFactors
  const org = yield* (yield* Organizations).create("Org")
  const email = `member-${Math.random()}@example.com`
  const { token } = yield* access.invite(org.id, email, "member")
  const { user } = yield* access.acceptInvite(Redacted.value(token), password, address)
  const { secret, uri } = yield* twoFactor.setup(user)
  const recoveryCodes = Redacted.value(yield* twoFactor.enable(user, password, codeAt(secret, startStep - 1), address))
  return { org: org.id, user, email, secret, uri, recoveryCodes }
})

/** The token of a sign-in held for its code. */
const held = (email: string, from = address) =>
  Effect.flatMap(Accounts, (access) =>
    Effect.map(Effect.orDie(Effect.flip(access.signIn(email, password, from))), (refused) => {
      assert.strictEqual(refused._tag, "SecondStepRequired")
      return refused._tag === "SecondStepRequired" ? Redacted.value(refused.token) : ""
    })
  )

describe("SecondFactors", () => {
  it.effect("is turned on by a code of the new secret, one step of drift either way and not two", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const access = yield* Accounts
      const twoFactor = yield* SecondFactors
      const org = yield* (yield* Organizations).create("Org")
      const { token } = yield* access.invite(org.id, "ada@example.com", "admin")
      const { user } = yield* access.acceptInvite(Redacted.value(token), password, address)
      const { secret, uri } = yield* twoFactor.setup(user)
      assert.match(Redacted.value(secret), /^[A-Z2-7]{32}$/)
      assert.match(uri, /^otpauth:\/\/totp\/.*ada%40example\.com\?.*secret=[A-Z2-7]{32}/)
      for (const step of [startStep - 2, startStep + 2]) {
        assert.strictEqual(
          yield* refusal(twoFactor.enable(user, password, codeAt(secret, step), address)),
          "CodeRefused"
        )
      }
      // The password too: a session alone cannot enroll another authenticator.
      const withoutPassword = twoFactor.enable(
        user,
        Redacted.make("not the password"),
        codeAt(secret, startStep),
        address
      )
      assert.strictEqual(yield* refusal(withoutPassword), "CodeRefused")
      assert.isFalse(yield* twoFactor.isOn(user))
      yield* twoFactor.enable(user, password, codeAt(secret, startStep + 1), address)
      assert.isTrue(yield* twoFactor.isOn(user))
      // Once on, a session alone cannot swap the secret: that takes turning it off first.
      const other = yield* twoFactor.setup(user)
      const swap = twoFactor.enable(user, password, codeAt(other.secret, startStep), address)
      assert.strictEqual(yield* refusal(swap), "CodeRefused")

      const entries = yield* (yield* DashboardAuditLog).recent(org.id, 10)
      assert.deepStrictEqual(
        entries.map((entry) => entry.action),
        ["recovery_codes_generated", "totp_enabled", "invite_accepted"]
      )
      assert.notInclude(JSON.stringify(entries), Redacted.value(secret))
    }).pipe(Effect.provide(Services))
  )

  it.effect("a sign-in is held until its code; a code is accepted once, within one step either way", () =>
    Effect.gen(function* () {
      const access = yield* Accounts
      const { user, email, secret } = yield* enrolled
      // The enabling code's step is used up: it cannot sign in as well.
      const replayOfEnabling = access.signInWithCode(yield* held(email), codeAt(secret, startStep - 1), address)
      assert.strictEqual(yield* refusal(replayOfEnabling), "CodeRefused")

      const token = yield* held(email)
      const signed = yield* access.signInWithCode(token, codeAt(secret, startStep), address)
      assert.strictEqual((yield* access.authenticate(Redacted.value(signed.sessionToken))).user.id, user.id)
      // The held sign-in is used up, and so is the code's step.
      assert.strictEqual(
        yield* refusal(access.signInWithCode(token, codeAt(secret, startStep + 1), address)),
        "CodeRefused"
      )
      const replay = access.signInWithCode(yield* held(email), codeAt(secret, startStep), address)
      assert.strictEqual(yield* refusal(replay), "CodeRefused")
      yield* access.signInWithCode(yield* held(email), codeAt(secret, startStep + 1), address)

      yield* TestClock.adjust(Duration.millis(3 * stepMillis))
      const now = startStep + 3
      const tooEarly = access.signInWithCode(yield* held(email), codeAt(secret, now + 2), address)
      assert.strictEqual(yield* refusal(tooEarly), "CodeRefused")
      yield* access.signInWithCode(yield* held(email), codeAt(secret, now - 1), address)

      const waiting = yield* held(email)
      yield* TestClock.adjust(heldSignInLifetime)
      const late = Math.floor((start + 3 * stepMillis + Duration.toMillis(heldSignInLifetime)) / stepMillis)
      assert.strictEqual(yield* refusal(access.signInWithCode(waiting, codeAt(secret, late), address)), "CodeRefused")
    }).pipe(Effect.provide(Services))
  )

  it.effect("wrong codes in a row, however slowly they come, lock the factor; a right one starts the count again", () =>
    Effect.gen(function* () {
      const access = yield* Accounts
      const { email, secret } = yield* enrolled
      const stepNow = Effect.map(Clock.currentTimeMillis, (now) => Math.floor(now / stepMillis))
      // Slower than any throttle window remembers, from five addresses in turn: only the stored
      // count sees them all.
      const attackers = ["203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4", "203.0.113.5"]
      const wrongTries = (count: number) =>
        Effect.forEach(
          Array.from({ length: count }, (_, i) => attackers[i % attackers.length]!),
          (from) =>
            Effect.gen(function* () {
              yield* TestClock.adjust(Duration.minutes(16))
              const refused = yield* Effect.flip(
                access.signInWithCode(yield* held(email, from), wrongAt(secret, yield* stepNow), from)
              )
              assert.strictEqual(refused.reason, "wrong")
            })
        )
      const rightCode = Effect.gen(function* () {
        return yield* access.signInWithCode(yield* held(email), codeAt(secret, yield* stepNow), address)
      })
      yield* wrongTries(maxWrongCodes - 1)
      yield* TestClock.adjust(Duration.minutes(16))
      yield* rightCode
      yield* wrongTries(maxWrongCodes)
      yield* TestClock.adjust(Duration.minutes(1))
      const locked = yield* Effect.flip(rightCode)
      assert.strictEqual(locked.reason, "locked")
      assert.strictEqual(locked.retryAfterSeconds, Duration.toSeconds(lockLength(0)) - 60)
      yield* TestClock.adjust(Duration.seconds(locked.retryAfterSeconds))
      yield* rightCode
    }).pipe(Effect.provide(Services))
  )

  it.effect("a lock always ends, each one before a right code twice as long as the last, up to a day", () =>
    Effect.gen(function* () {
      const access = yield* Accounts
      const { email, secret } = yield* enrolled
      const stepNow = Effect.map(Clock.currentTimeMillis, (now) => Math.floor(now / stepMillis))
      const lockNow = Effect.gen(function* () {
        for (let i = 0; i < maxWrongCodes; i++) {
          const from = `203.0.113.${i + 1}`
          yield* Effect.flip(access.signInWithCode(yield* held(email, from), wrongAt(secret, yield* stepNow), from))
        }
        const refused = yield* Effect.flip(
          access.signInWithCode(yield* held(email), codeAt(secret, yield* stepNow), address)
        )
        assert.strictEqual(refused.reason, "locked")
        return refused.retryAfterSeconds
      })
      const waits: Array<number> = []
      for (let lock = 0; lock < 8; lock++) {
        waits.push(yield* lockNow)
        yield* TestClock.adjust(Duration.seconds(waits.at(-1)!))
        // The throttle's windows, per address, are long forgotten by now.
        yield* TestClock.adjust(Duration.minutes(16))
      }
      assert.deepStrictEqual(
        waits,
        [15, 30, 60, 120, 240, 480, 960, 1440].map((minutes) => minutes * 60)
      )
      const signed = yield* access.signInWithCode(yield* held(email), codeAt(secret, yield* stepNow), address)
      assert.strictEqual(signed.wrongCodeTried?.clientAddress, `203.0.113.${maxWrongCodes}`)
    }).pipe(Effect.provide(Services))
  )

  it("a lock lasts between its first length and a day, and never less than the one before it", () =>
    fc.assert(
      fc.property(fc.nat(1_000), (locks) => {
        const length = Duration.toMillis(lockLength(locks))
        assert.isAtLeast(length, Duration.toMillis(firstLock))
        assert.isAtMost(length, Duration.toMillis(longestLock))
        assert.isAtLeast(Duration.toMillis(lockLength(locks + 1)), length)
      })
    ))

  it.effect("a right code after wrong ones tells the owner when and from where the latest was entered", () =>
    Effect.gen(function* () {
      const access = yield* Accounts
      const twoFactor = yield* SecondFactors
      const { user, email, secret } = yield* enrolled
      const first = yield* access.signInWithCode(yield* held(email), codeAt(secret, startStep), address)
      assert.isNull(first.wrongCodeTried, "no wrong code yet")
      yield* TestClock.adjust(Duration.millis(stepMillis))
      const attacker = "203.0.113.77"
      yield* Effect.flip(access.signInWithCode(yield* held(email, attacker), wrongAt(secret, startStep + 1), attacker))
      const triedAt = yield* Clock.currentTimeMillis
      yield* TestClock.adjust(Duration.millis(stepMillis))
      const signed = yield* access.signInWithCode(yield* held(email), codeAt(secret, startStep + 2), address)
      assert.strictEqual(signed.wrongCodeTried?.clientAddress, attacker)
      assert.strictEqual(DateTime.toEpochMillis(signed.wrongCodeTried!.at), triedAt)
      // Told once at sign-in; the account page keeps showing the latest.
      yield* TestClock.adjust(Duration.millis(stepMillis))
      const next = yield* access.signInWithCode(yield* held(email), codeAt(secret, startStep + 3), address)
      assert.isNull(next.wrongCodeTried)
      assert.strictEqual((yield* twoFactor.lastWrongCode(user))?.clientAddress, attacker)
    }).pipe(Effect.provide(Services))
  )

  it.effect("wrong codes are audited as failed sign-ins and throttled like wrong passwords", () =>
    Effect.gen(function* () {
      const access = yield* Accounts
      const { org, user, email, secret } = yield* enrolled
      for (let i = 0; i < pairThrottle.failures; i++) {
        const wrong = yield* Effect.flip(access.signInWithCode(yield* held(email), wrongAt(secret, startStep), address))
        assert.strictEqual(wrong.reason, "wrong")
      }
      const locked = yield* Effect.flip(access.signInWithCode(yield* held(email), codeAt(secret, startStep), address))
      assert.strictEqual(locked.reason, "throttled")
      assert.isAbove(locked.retryAfterSeconds, 0)
      // Elsewhere, the owner still gets in.
      yield* access.signInWithCode(yield* held(email, "203.0.113.7"), codeAt(secret, startStep), "203.0.113.7")

      const entries = yield* (yield* DashboardAuditLog).recent(org, 20)
      const failed = entries.filter((entry) => entry.action === "sign_in_failed")
      assert.strictEqual(failed.length, pairThrottle.failures)
      assert.isTrue(failed.every((entry) => entry.user?.userId === user.id))
    }).pipe(Effect.provide(Services))
  )

  it.effect("is turned off with the password and a code, after which the password alone signs in", () =>
    Effect.gen(function* () {
      const access = yield* Accounts
      const twoFactor = yield* SecondFactors
      const { org, user, email, secret } = yield* enrolled
      const wrongPassword = twoFactor.disable(
        user,
        Redacted.make("wrong password!"),
        codeAt(secret, startStep),
        address
      )
      assert.strictEqual(yield* refusal(wrongPassword), "CodeRefused")
      const wrongCode = twoFactor.disable(user, password, wrongAt(secret, startStep), address)
      assert.strictEqual(yield* refusal(wrongCode), "CodeRefused")
      assert.isTrue(yield* twoFactor.isOn(user))
      yield* twoFactor.disable(user, password, codeAt(secret, startStep), address)
      assert.isFalse(yield* twoFactor.isOn(user))
      yield* access.signIn(email, password, address)
      const actions = (yield* (yield* DashboardAuditLog).recent(org, 10)).map((entry) => entry.action)
      // The refused attempts to turn it off are recorded as failed checks of the user's credentials.
      assert.deepStrictEqual(actions.slice(0, 5), [
        "sign_in",
        "totp_disabled",
        "sign_in_failed",
        "sign_in_failed",
        "recovery_codes_generated"
      ])
    }).pipe(Effect.provide(Services))
  )

  it.effect("regression: a user who lost their authenticator signs in with a recovery code, each code once", () =>
    Effect.gen(function* () {
      const access = yield* Accounts
      const { org, email, secret, recoveryCodes } = yield* enrolled
      assert.strictEqual(recoveryCodes.length, 10)
      assert.strictEqual(new Set(recoveryCodes).size, 10)
      const [first, second] = recoveryCodes
      const signed = yield* access.signInWithCode(yield* held(email), first!, address)
      assert.strictEqual(signed.recoveryCodesLeft, 9)
      const again = yield* Effect.flip(access.signInWithCode(yield* held(email), first!, address))
      assert.strictEqual(again.reason, "wrong", "a used code is refused")
      // As typed from paper: upper case, a space for the dash.
      const typed = yield* access.signInWithCode(yield* held(email), second!.toUpperCase().replace("-", " "), address)
      assert.strictEqual(typed.recoveryCodesLeft, 8)
      const withApp = yield* access.signInWithCode(yield* held(email), codeAt(secret, startStep), address)
      assert.isNull(withApp.recoveryCodesLeft)

      const entries = yield* (yield* DashboardAuditLog).recent(org, 20)
      assert.deepStrictEqual(
        entries.slice(0, 6).map((entry) => entry.action),
        ["sign_in", "sign_in", "recovery_code_used", "sign_in_failed", "sign_in", "recovery_code_used"]
      )
      for (const code of recoveryCodes) assert.notInclude(JSON.stringify(entries), code.slice(0, 5))
    }).pipe(Effect.provide(Services))
  )

  it.effect("of two uses of one recovery code at once, one signs in", () =>
    Effect.gen(function* () {
      const access = yield* Accounts
      const { email, recoveryCodes } = yield* enrolled
      const tokens = [yield* held(email), yield* held(email)]
      const results = yield* Effect.all(
        tokens.map((token) => Effect.exit(access.signInWithCode(token, recoveryCodes[0]!, address))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(results.filter(Exit.isSuccess).length, 1)
    }).pipe(Effect.provide(Services))
  )

  it.effect("wrong recovery codes count toward the same lock as wrong codes of the app", () =>
    Effect.gen(function* () {
      const access = yield* Accounts
      const { email, secret, recoveryCodes } = yield* enrolled
      for (let i = 0; i < maxWrongCodes; i++) {
        const from = `203.0.113.${i + 1}`
        const guess = i % 2 === 0 ? "abcde-fghjk" : wrongAt(secret, startStep)
        const refused = yield* Effect.flip(access.signInWithCode(yield* held(email, from), guess, from))
        assert.strictEqual(refused.reason, "wrong")
      }
      const locked = yield* Effect.flip(access.signInWithCode(yield* held(email), recoveryCodes[0]!, address))
      assert.strictEqual(locked.reason, "locked", "while locked, not even a right recovery code is tried")
      yield* TestClock.adjust(Duration.seconds(locked.retryAfterSeconds))
      assert.strictEqual(
        (yield* access.signInWithCode(yield* held(email), recoveryCodes[0]!, address)).recoveryCodesLeft,
        9
      )
    }).pipe(Effect.provide(Services))
  )

  it.effect("a new set takes the password and voids the old one", () =>
    Effect.gen(function* () {
      const access = yield* Accounts
      const twoFactor = yield* SecondFactors
      const { org, user, email, recoveryCodes } = yield* enrolled
      const refused = twoFactor.newRecoveryCodes(user, Redacted.make("not the password"), address)
      assert.strictEqual(yield* refusal(refused), "CodeRefused")
      assert.isTrue(yield* twoFactor.areRecoveryCodes(user, recoveryCodes))
      const fresh = Redacted.value(yield* twoFactor.newRecoveryCodes(user, password, address))
      assert.isFalse(yield* twoFactor.areRecoveryCodes(user, recoveryCodes))
      assert.isTrue(yield* twoFactor.areRecoveryCodes(user, fresh))
      assert.strictEqual(
        yield* refusal(access.signInWithCode(yield* held(email), recoveryCodes[1]!, address)),
        "CodeRefused"
      )
      yield* access.signInWithCode(yield* held(email), fresh[1]!, address)
      assert.strictEqual(yield* twoFactor.recoveryCodesLeft(user), 9)
      const actions = (yield* (yield* DashboardAuditLog).recent(org, 10)).map((entry) => entry.action)
      assert.include(actions.slice(0, 5), "recovery_codes_generated")
    }).pipe(Effect.provide(Services))
  )

  it.effect("turned off with a recovery code, the factor takes the rest of the codes with it", () =>
    Effect.gen(function* () {
      const twoFactor = yield* SecondFactors
      const { user, recoveryCodes } = yield* enrolled
      yield* twoFactor.disable(user, password, recoveryCodes[0]!, address)
      assert.isFalse(yield* twoFactor.isOn(user))
      assert.strictEqual(yield* twoFactor.recoveryCodesLeft(user), 0)
      assert.isFalse(yield* twoFactor.areRecoveryCodes(user, recoveryCodes.slice(1)))
    }).pipe(Effect.provide(Services))
  )
})
