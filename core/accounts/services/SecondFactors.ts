/**
 * The dashboard's optional second factor (TOTP, RFC 6238), as policy over `OneTimeCodes`, the
 * `SecondFactorStore` and the `UserStore`: a user turns it on by confirming a new secret with a code and off with
 * their password and a code; a sign-in whose password was right is held, by a single-use token
 * stored as its SHA-256, until a code completes it. A code counts for its own 30-second step or
 * one step either side (clocks drift), and only for a step later than the last one accepted, so
 * no code is accepted twice. Wrong codes are throttled like wrong passwords (`SignInThrottle.ts`,
 * a table of their own: per address, and per account from addresses it has not signed in from),
 * counted per user in storage, where a run of them locks the factor for a while (never for good),
 * and audited as failed sign-ins; the owner is shown the latest one. Turning the factor on or off
 * is audited.
 * Recovery codes (`domain/RecoveryCodes.ts`) stand in for a code of the app: a set of ten is made
 * as the factor is turned on, and again on request (with the password), voiding the one before;
 * each is accepted once, in the same field and under the same throttle and lock as the app's codes
 * (stored as digests: `RecoveryCodeSets.ts`).
 * The secret is proposed and kept by the server until a code confirms it; the browser only
 * shows it. It is never logged nor audited. Depends on effect and the core alone.
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Digest, SecureRandom } from "effect/crypto"
import type { OrgId, UserId } from "../../shared/domain/Ids.ts"
import * as Policy from "../domain/Dashboard.ts"
import { verifyTyped } from "../domain/PasswordRules.ts"
import * as RecoveryCodes from "../domain/RecoveryCodes.ts"
import { OneTimeCodes } from "../ports/OneTimeCodes.ts"
import { type HashingBusy, PasswordHasher } from "../ports/PasswordHasher.ts"
import { type SecondFactor, SecondFactorStore, type WrongCode } from "../ports/SecondFactorStore.ts"
import { type DashboardUser, UserStore } from "../ports/UserStore.ts"
import * as ActionLog from "./ActionLog.ts"
import * as RecoveryCodeSets from "./RecoveryCodeSets.ts"
import { makeThrottle } from "./SignInThrottle.ts"

export const stepMillis = 30_000
/** Steps accepted either side of the current one. */
export const drift = 1
/** How long a sign-in waits for its code. */
export const heldSignInLifetime = Duration.minutes(5)
/**
 * Wrong codes in a row, from any address, after which the factor is locked (`lockLength`). The
 * windows of `SignInThrottle` last 15 minutes (and count per process with `LIMITS_STORE=memory`); this count is stored, so
 * someone who has the password cannot guess codes for weeks: with the locks doubling, about 70
 * guesses the first day and 10 a day after, each with 3 chances in a million (NIST SP 800-63B
 * allows 100 in a row).
 * A lock always ends: a permanent one would let a stolen password lock the owner out for good.
 */
export const maxWrongCodes = 10
/** The first lock; each further one before a right code lasts twice the one before, up to `longestLock`. */
export const firstLock = Duration.minutes(15)
export const longestLock = Duration.hours(24)

/** How long the factor is locked when `locksBefore` locks came before this one since the last right code. */
export const lockLength = (locksBefore: number): Duration.Duration =>
  Duration.min(Duration.times(firstLock, 2 ** Math.min(locksBefore, 16)), longestLock)
/** Shown in authenticator apps beside the account. */
export const issuer = "Partner Receivables"

/**
 * A wrong, reused or malformed code (or password, when turning the factor off), too many of them
 * in a window (`throttled`), `maxWrongCodes` in a row (`locked`, until `retryAfterSeconds` pass),
 * or a password that could not be checked now (`busy`: too many hashes in flight).
 * A sign-in's second step refused for a wrong code of a held sign-in that was still valid, or for
 * a moment's throttling, carries `heldAgain`: the same sign-in held under a new token, so that the
 * user types the code again rather than the e-mail address and password. It gives nobody more
 * tries than the password already does (each password sign-in holds one), and the factor's own
 * count of wrong codes in a row still locks it.
 */
export class CodeRefused extends Schema.TaggedError<CodeRefused>()("CodeRefused", {
  reason: Schema.Literals(["wrong", "throttled", "locked", "busy"]),
  retryAfterSeconds: Schema.Number,
  heldAgain: Schema.optional(Schema.Redacted(Schema.String))
}) {}

/** What the audit log names as the subject of a wrong code. */
export const wrongCodeSubject = "second factor"

/**
 * A second step completed, and the latest wrong code entered since the last right one (by
 * someone who knew the password: the owner's typo, or not), for the owner to be told.
 */
export interface CodeAccepted {
  readonly user: DashboardUser
  readonly wrongCodeTried: WrongCode | null
  /** How many recovery codes are left when one was used; null when the app's code was. */
  readonly recoveryCodesLeft: number | null
}

/** A new set of recovery codes, `xxxxx-xxxxx` each, to be shown once. */
export type RecoveryCodeSet = Redacted.Redacted<ReadonlyArray<string>>

export interface Setup {
  readonly secret: Redacted.Redacted<string>
  readonly uri: string
}

const codePattern = /^\d{6}$/
const utf8 = new TextEncoder()

export class SecondFactors extends Context.Service<
  SecondFactors,
  {
    readonly isOn: (user: DashboardUser) => Effect.Effect<boolean>
    /**
     * The secret to show on the enabling page: the one proposed before, kept on the server until a
     * code confirms it (so a wrong code does not change what the app was given), or a new one.
     */
    readonly setup: (user: DashboardUser) => Effect.Effect<Setup>
    /**
     * Turns it on with the password (a session alone must not be able to enroll another
     * authenticator) and a current code of the secret the server proposed: the browser never
     * sends a secret, so no page can choose one.
     */
    readonly enable: (
      user: DashboardUser,
      password: Redacted.Redacted<string>,
      code: string,
      clientAddress: string | null
    ) => Effect.Effect<RecoveryCodeSet, CodeRefused>
    /** With the password, while the factor is on: a new set of recovery codes, voiding the old one. */
    readonly newRecoveryCodes: (
      user: DashboardUser,
      password: Redacted.Redacted<string>,
      clientAddress: string | null
    ) => Effect.Effect<RecoveryCodeSet, CodeRefused>
    readonly recoveryCodesLeft: (user: DashboardUser) => Effect.Effect<number>
    /** Whether these are all unused recovery codes of the user's (a page shows no others). */
    readonly areRecoveryCodes: (user: DashboardUser, codes: ReadonlyArray<string>) => Effect.Effect<boolean>
    /** With the password and a code of the app or a recovery code. */
    readonly disable: (
      user: DashboardUser,
      password: Redacted.Redacted<string>,
      code: string,
      clientAddress: string | null
    ) => Effect.Effect<void, CodeRefused>
    /** Holds a sign-in whose password was right; the token is for the second step's form only. */
    readonly hold: (user: DashboardUser) => Effect.Effect<Redacted.Redacted<string>>
    /**
     * The held sign-in's user if the code (of the app, or a recovery code) is right; the token is
     * used up either way.
     */
    readonly complete: (
      token: string,
      code: string,
      clientAddress: string | null
    ) => Effect.Effect<CodeAccepted, CodeRefused>
    /** The latest wrong code entered for the user's factor (after their right password), if any. */
    readonly lastWrongCode: (user: DashboardUser) => Effect.Effect<WrongCode | null>
  }
>()("core/SecondFactors") {
  static readonly layer = Layer.effect(
    SecondFactors,
    Effect.gen(function* () {
      const users = yield* UserStore
      const factors = yield* SecondFactorStore
      const codes = yield* OneTimeCodes
      const actions = yield* ActionLog.make
      const hasher = yield* PasswordHasher
      const digest = yield* Digest.Digest
      const random = yield* SecureRandom.SecureRandom
      const throttle = yield* makeThrottle("code")
      const recovery = RecoveryCodeSets.make(factors, digest, random)

      const sha256 = (text: string) => digest.digest(Digest.sha256, utf8.encode(text))
      const wrong = new CodeRefused({ reason: "wrong", retryAfterSeconds: 0 })

      const record = (
        user: DashboardUser,
        action: "totp_enabled" | "totp_disabled" | "sign_in_failed" | "recovery_codes_generated" | "recovery_code_used",
        from: string | null
      ) =>
        actions.byUser({
          user,
          action,
          // A wrong code names the factor, so that the log tells it from a wrong password.
          subject: action === "sign_in_failed" ? wrongCodeSubject : null,
          clientAddress: from
        })

      /** The step within the drift whose code this is, if any. */
      const stepOf = Effect.fnUntraced(function* (secret: Redacted.Redacted<string>, code: string) {
        const current = Math.floor(DateTime.toEpochMillis(yield* DateTime.now) / stepMillis)
        if (!codePattern.test(code)) return Option.none<number>()
        const steps = Array.from({ length: 2 * drift + 1 }, (_, i) => current - drift + i)
        return Option.fromNullishOr(steps.find((step) => Policy.constantTimeEqual(codes.codeAt(secret, step), code)))
      })

      /** Admits a code attempt for the user, counted as failed until `check` says it was right. */
      const throttled = Effect.fnUntraced(function* <A>(
        user: DashboardUser,
        clientAddress: string | null,
        check: Effect.Effect<Option.Option<A>, CodeRefused | HashingBusy>
      ) {
        const admission = yield* throttle.admit(user.email, clientAddress)
        if (admission._tag === "Throttled") {
          return yield* new CodeRefused({ reason: "throttled", retryAfterSeconds: admission.retryAfterSeconds })
        }
        const right = yield* Effect.catchTag(check, "HashingBusy", (busy) =>
          Effect.andThen(
            admission.attempt.untested,
            new CodeRefused({ reason: "busy", retryAfterSeconds: busy.retryAfterSeconds })
          )
        )
        if (Option.isNone(right)) return yield* wrong
        yield* admission.attempt.succeeded
        return right.value
      })

      /** A new set for a user whose factor is on, replacing the old; recorded once stored. */
      const makeRecoveryCodes = Effect.fnUntraced(function* (user: DashboardUser, clientAddress: string | null) {
        const codes = yield* recovery.replace(user)
        if (Option.isNone(codes)) return yield* wrong
        yield* record(user, "recovery_codes_generated", clientAddress)
        return Redacted.make(codes.value) satisfies RecoveryCodeSet
      })

      /**
       * A right code of the user's stored secret, for a step not accepted before, or an unused
       * recovery code (used up now, either way): the recovery codes left, or null for the app's
       * code. A wrong one is counted and kept as the latest, and the `maxWrongCodes`-th in a row
       * locks the factor: while it is locked no code is tried at all.
       */
      const acceptsCode = (org: OrgId, id: UserId, code: string, clientAddress: string | null) =>
        Effect.gen(function* () {
          const factor = yield* factors.findSecondFactor(org, id)
          if (Option.isNone(factor)) return Option.none<number | null>()
          const now = yield* DateTime.now
          const { lockedUntil, wrongCodes, locks } = factor.value
          if (lockedUntil !== null && DateTime.isLessThan(now, lockedUntil)) {
            const seconds = Math.ceil((DateTime.toEpochMillis(lockedUntil) - DateTime.toEpochMillis(now)) / 1000)
            return yield* new CodeRefused({ reason: "locked", retryAfterSeconds: seconds })
          }
          const canonical = RecoveryCodes.normalize(code)
          if (canonical !== undefined) {
            const left = yield* recovery.use(org, id, canonical)
            if (Option.isSome(left)) return Option.some<number | null>(left.value)
          } else {
            const step = yield* stepOf(factor.value.secret, code)
            if (Option.isSome(step) && (yield* factors.useStep(org, id, step.value))) return Option.some(null)
          }
          const lockUntil = wrongCodes + 1 >= maxWrongCodes ? DateTime.addDuration(now, lockLength(locks)) : null
          yield* factors.countWrongCode(org, id, { at: now, clientAddress }, lockUntil)
          return Option.none<number | null>()
        })

      /** The latest wrong code, if any came after the last right one (or a lock since). */
      const wrongCodeSinceRightOne = (factor: Option.Option<SecondFactor>) =>
        Option.isSome(factor) && (factor.value.wrongCodes > 0 || factor.value.locks > 0)
          ? factor.value.lastWrongCode
          : null

      const isOn = (user: DashboardUser) => Effect.map(factors.findSecondFactor(user.orgId, user.id), Option.isSome)

      const setup = Effect.fn("SecondFactors.setup")(function* (user: DashboardUser) {
        const proposed = yield* factors.findPendingSecret(user.orgId, user.id)
        const secret = Option.isSome(proposed) ? proposed.value : yield* codes.newSecret
        if (Option.isNone(proposed)) yield* factors.setPendingSecret(user.orgId, user.id, secret)
        return { secret, uri: codes.uri(secret, issuer, user.email) } satisfies Setup
      })

      /** Whether `password` is the user's, by their stored hash. */
      const passwordOf = (user: DashboardUser, password: Redacted.Redacted<string>) =>
        Effect.flatMap(users.findByEmail(user.email), (credentials) =>
          Option.isNone(credentials)
            ? Effect.succeed(false)
            : verifyTyped((typed) => hasher.verify(typed, credentials.value.passwordHash), password)
        )

      const enable = Effect.fn("SecondFactors.enable")(function* (
        user: DashboardUser,
        password: Redacted.Redacted<string>,
        code: string,
        clientAddress: string | null
      ) {
        // Turned on once: replacing the secret is turning it off (password and code) and on again.
        const proposed = yield* factors.findPendingSecret(user.orgId, user.id)
        if (Option.isNone(proposed) || (yield* isOn(user))) return yield* wrong
        const secret = proposed.value
        const step = yield* stepOf(secret, code)
        yield* throttled(
          user,
          clientAddress,
          Effect.map(passwordOf(user, password), (matches) => Option.filter(step, () => matches))
        )
        if (Option.isNone(step)) return yield* wrong
        // Only where none is on, in one step: of two tabs confirming at once, one wins. The
        // confirming code's step is used up, so that code cannot sign in too.
        if (!(yield* factors.setSecondFactor(user.orgId, user.id, { secret, lastStep: step.value }))) {
          return yield* wrong
        }
        // Recorded once it took effect; a factor on without its record is undone.
        yield* record(user, "totp_enabled", clientAddress).pipe(
          Effect.onError(() => factors.setSecondFactor(user.orgId, user.id, null))
        )
        return yield* makeRecoveryCodes(user, clientAddress)
      })

      const newRecoveryCodes = Effect.fn("SecondFactors.newRecoveryCodes")(function* (
        user: DashboardUser,
        password: Redacted.Redacted<string>,
        clientAddress: string | null
      ) {
        if (!(yield* isOn(user))) return yield* wrong
        yield* throttled(
          user,
          clientAddress,
          Effect.map(passwordOf(user, password), (matches) => (matches ? Option.some(true) : Option.none()))
        ).pipe(Effect.tapError(() => record(user, "sign_in_failed", clientAddress)))
        return yield* makeRecoveryCodes(user, clientAddress)
      })

      const disable = Effect.fn("SecondFactors.disable")(function* (
        user: DashboardUser,
        password: Redacted.Redacted<string>,
        code: string,
        clientAddress: string | null
      ) {
        const recoveryCodesLeft = yield* throttled(
          user,
          clientAddress,
          Effect.flatMap(passwordOf(user, password), (matches) =>
            matches ? acceptsCode(user.orgId, user.id, code, clientAddress) : Effect.succeedNone
          )
        ).pipe(Effect.tapError(() => record(user, "sign_in_failed", clientAddress)))
        if (recoveryCodesLeft !== null) yield* record(user, "recovery_code_used", clientAddress)
        yield* record(user, "totp_disabled", clientAddress)
        yield* factors.setSecondFactor(user.orgId, user.id, null)
      })

      const hold = Effect.fn("SecondFactors.hold")(function* (user: DashboardUser) {
        const token = Policy.tokenFromBytes(yield* random.randomBytes(Policy.tokenBytes))
        const expiresAt = DateTime.addDuration(yield* DateTime.now, heldSignInLifetime)
        yield* factors.holdSignIn(user.orgId, user.id, yield* sha256(token), expiresAt)
        return Redacted.make(token)
      })

      const complete = Effect.fn("SecondFactors.complete")(function* (
        token: string,
        code: string,
        clientAddress: string | null
      ) {
        if (!Policy.isWellFormedToken(token)) return yield* wrong
        const held = yield* factors.takeSignIn(yield* sha256(token), yield* DateTime.now)
        if (Option.isNone(held)) return yield* wrong
        const user = held.value
        const before = yield* factors.findSecondFactor(user.orgId, user.id)
        const recoveryCodesLeft = yield* throttled(
          user,
          clientAddress,
          acceptsCode(user.orgId, user.id, code, clientAddress)
        ).pipe(
          Effect.tapError((refused) =>
            refused.reason === "wrong" ? record(user, "sign_in_failed", clientAddress) : Effect.void
          ),
          Effect.catchTag("CodeRefused", (refused) =>
            refused.reason === "wrong" || refused.reason === "throttled"
              ? Effect.flatMap(hold(user), (heldAgain) => Effect.fail(new CodeRefused({ ...refused, heldAgain })))
              : Effect.fail(refused)
          )
        )
        if (recoveryCodesLeft !== null) yield* record(user, "recovery_code_used", clientAddress)
        return { user, wrongCodeTried: wrongCodeSinceRightOne(before), recoveryCodesLeft } satisfies CodeAccepted
      })

      const lastWrongCode = (user: DashboardUser) =>
        Effect.map(factors.findSecondFactor(user.orgId, user.id), (factor) =>
          Option.isSome(factor) ? factor.value.lastWrongCode : null
        )

      return SecondFactors.of({
        isOn,
        setup,
        enable,
        newRecoveryCodes,
        recoveryCodesLeft: recovery.left,
        areRecoveryCodes: recovery.areUnused,
        disable,
        hold,
        complete,
        lastWrongCode
      })
    })
  )
}
