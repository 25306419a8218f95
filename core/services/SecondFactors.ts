/**
 * The dashboard's optional second factor (TOTP, RFC 6238), as policy over `OneTimeCodes` and the
 * `DashboardUserStore`: a user turns it on by confirming a new secret with a code and off with
 * their password and a code; a sign-in whose password was right is held, by a single-use token
 * stored as its SHA-256, until a code completes it. A code counts for its own 30-second step or
 * one step either side (clocks drift), and only for a step later than the last one accepted, so
 * no code is accepted twice. Wrong codes are throttled like wrong passwords (`SignInThrottle.ts`,
 * a table of their own) and audited as failed sign-ins; turning the factor on or off is audited.
 * The secret is never logged nor audited. Depends on effect and the core alone.
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Digest, SecureRandom } from "effect/crypto"
import * as Policy from "../domain/Dashboard.ts"
import type { OrgId, UserId } from "../domain/Ids.ts"
import { DashboardAuditLog } from "../ports/DashboardAuditLog.ts"
import { type DashboardUser, DashboardUserStore } from "../ports/DashboardUserStore.ts"
import { OneTimeCodes } from "../ports/OneTimeCodes.ts"
import { type HashingBusy, PasswordHasher } from "../ports/PasswordHasher.ts"
import { makeThrottle } from "./SignInThrottle.ts"

export const stepMillis = 30_000
/** Steps accepted either side of the current one. */
export const drift = 1
/** How long a sign-in waits for its code. */
export const heldSignInLifetime = Duration.minutes(5)
/**
 * Wrong codes in a row after which the factor accepts none until an operator's new invite resets
 * it. The windows of `SignInThrottle` forget on restart and count per process; this count is
 * stored, so someone who has the password cannot guess codes for weeks (NIST SP 800-63B allows
 * at most 100; 20 leaves an owner's typos room and gives a guesser 60 chances in a million).
 */
export const maxWrongCodes = 20
/** Shown in authenticator apps beside the account. */
export const issuer = "Partner Receivables"

/**
 * A wrong, reused or malformed code (or password, when turning the factor off), too many of them
 * in a window (`throttled`), `maxWrongCodes` in a row (`locked`, until `retryAfterSeconds` pass),
 * or a password that could not be checked now (`busy`: too many hashes in flight).
 */
export class CodeRefused extends Schema.TaggedError<CodeRefused>()("CodeRefused", {
  reason: Schema.Literals(["wrong", "throttled", "locked", "busy"]),
  retryAfterSeconds: Schema.Number
}) {}

export interface Setup {
  readonly secret: Redacted.Redacted<string>
  readonly uri: string
}

const codePattern = /^\d{6}$/
/** 160 bits in base32, as `OneTimeCodes.newSecret` makes them. */
const secretPattern = /^[A-Z2-7]{32}$/
const utf8 = new TextEncoder()

export class SecondFactors extends Context.Service<
  SecondFactors,
  {
    readonly isOn: (user: DashboardUser) => Effect.Effect<boolean>
    /** A new secret to show on the enabling page; nothing is stored until a code confirms it. */
    readonly setup: (user: DashboardUser) => Effect.Effect<Setup>
    /**
     * Turns it on with the password (a session alone must not be able to enroll another
     * authenticator) and a current code of the secret shown.
     */
    readonly enable: (
      user: DashboardUser,
      password: Redacted.Redacted<string>,
      secret: Redacted.Redacted<string>,
      code: string,
      clientAddress: string | null
    ) => Effect.Effect<void, CodeRefused>
    readonly disable: (
      user: DashboardUser,
      password: Redacted.Redacted<string>,
      code: string,
      clientAddress: string | null
    ) => Effect.Effect<void, CodeRefused>
    /** Holds a sign-in whose password was right; the token is for the second step's form only. */
    readonly hold: (user: DashboardUser) => Effect.Effect<Redacted.Redacted<string>>
    /** The held sign-in's user if the code is right; the token is used up either way. */
    readonly complete: (
      token: string,
      code: string,
      clientAddress: string | null
    ) => Effect.Effect<DashboardUser, CodeRefused>
  }
>()("core/SecondFactors") {
  static readonly layer = Layer.effect(
    SecondFactors,
    Effect.gen(function* () {
      const users = yield* DashboardUserStore
      const codes = yield* OneTimeCodes
      const audit = yield* DashboardAuditLog
      const hasher = yield* PasswordHasher
      const digest = yield* Digest.Digest
      const random = yield* SecureRandom.SecureRandom
      const throttle = makeThrottle()

      const sha256 = (text: string) => digest.digest(Digest.sha256, utf8.encode(text))
      const wrong = new CodeRefused({ reason: "wrong", retryAfterSeconds: 0 })
      const locked = new CodeRefused({ reason: "locked", retryAfterSeconds: 0 })

      const record = (
        user: DashboardUser,
        action: "totp_enabled" | "totp_disabled" | "sign_in_failed",
        from: string | null
      ) =>
        Effect.flatMap(DateTime.now, (at) =>
          audit.record({ at, user: { orgId: user.orgId, userId: user.id }, action, subject: null, clientAddress: from })
        )

      /** The step within the drift whose code this is, if any. */
      const stepOf = Effect.fnUntraced(function* (secret: Redacted.Redacted<string>, code: string) {
        const current = Math.floor(DateTime.toEpochMillis(yield* DateTime.now) / stepMillis)
        if (!codePattern.test(code)) return Option.none<number>()
        const steps = Array.from({ length: 2 * drift + 1 }, (_, i) => current - drift + i)
        return Option.fromNullishOr(steps.find((step) => Policy.constantTimeEqual(codes.codeAt(secret, step), code)))
      })

      /** Admits a code attempt for the user, counted as failed until `check` says it was right. */
      const throttled = Effect.fnUntraced(function* (
        user: DashboardUser,
        clientAddress: string | null,
        check: Effect.Effect<boolean, CodeRefused | HashingBusy>
      ) {
        const admission = throttle.admit(user.email, clientAddress, DateTime.toEpochMillis(yield* DateTime.now))
        if (admission._tag === "Throttled") {
          return yield* new CodeRefused({ reason: "throttled", retryAfterSeconds: admission.retryAfterSeconds })
        }
        const right = yield* Effect.catchTag(check, "HashingBusy", (busy) => {
          admission.attempt.untested()
          return new CodeRefused({ reason: "busy", retryAfterSeconds: busy.retryAfterSeconds })
        })
        if (!right) return yield* wrong
        admission.attempt.succeeded()
      })

      /**
       * A right code of the user's stored secret, for a step not accepted before (used up now); a
       * wrong one is counted, and past `maxWrongCodes` in a row none is accepted.
       */
      const acceptsCode = (org: OrgId, id: UserId, code: string) =>
        Effect.gen(function* () {
          const factor = yield* users.findSecondFactor(org, id)
          if (Option.isNone(factor)) return false
          if (factor.value.wrongCodes >= maxWrongCodes) return yield* locked
          const step = yield* stepOf(factor.value.secret, code)
          if (Option.isSome(step) && (yield* users.useStep(org, id, step.value))) return true
          yield* users.countWrongCode(org, id)
          return false
        })

      const isOn = (user: DashboardUser) => Effect.map(users.findSecondFactor(user.orgId, user.id), Option.isSome)

      const setup = Effect.fn("SecondFactors.setup")(function* (user: DashboardUser) {
        const secret = yield* codes.newSecret
        return { secret, uri: codes.uri(secret, issuer, user.email) } satisfies Setup
      })

      /** Whether `password` is the user's, by their stored hash. */
      const passwordOf = (user: DashboardUser, password: Redacted.Redacted<string>) =>
        Effect.flatMap(users.findByEmail(user.email), (credentials) =>
          Option.isNone(credentials) ? Effect.succeed(false) : hasher.verify(password, credentials.value.passwordHash)
        )

      const enable = Effect.fn("SecondFactors.enable")(function* (
        user: DashboardUser,
        password: Redacted.Redacted<string>,
        secret: Redacted.Redacted<string>,
        code: string,
        clientAddress: string | null
      ) {
        // Turned on once: replacing the secret is turning it off (password and code) and on again.
        if (!secretPattern.test(Redacted.value(secret)) || (yield* isOn(user))) return yield* wrong
        const step = yield* stepOf(secret, code)
        yield* throttled(
          user,
          clientAddress,
          Effect.map(passwordOf(user, password), (matches) => matches && Option.isSome(step))
        )
        if (Option.isNone(step)) return yield* wrong
        // Only where none is on, in one step: of two tabs confirming at once, one wins. The
        // confirming code's step is used up, so that code cannot sign in too.
        if (!(yield* users.setSecondFactor(user.orgId, user.id, { secret, lastStep: step.value }))) {
          return yield* wrong
        }
        // Recorded once it took effect; a factor on without its record is undone.
        yield* record(user, "totp_enabled", clientAddress).pipe(
          Effect.onError(() => users.setSecondFactor(user.orgId, user.id, null))
        )
      })

      const disable = Effect.fn("SecondFactors.disable")(function* (
        user: DashboardUser,
        password: Redacted.Redacted<string>,
        code: string,
        clientAddress: string | null
      ) {
        yield* throttled(
          user,
          clientAddress,
          Effect.flatMap(passwordOf(user, password), (matches) =>
            matches ? acceptsCode(user.orgId, user.id, code) : Effect.succeed(false)
          )
        ).pipe(Effect.tapError(() => record(user, "sign_in_failed", clientAddress)))
        yield* record(user, "totp_disabled", clientAddress)
        yield* users.setSecondFactor(user.orgId, user.id, null)
      })

      const hold = Effect.fn("SecondFactors.hold")(function* (user: DashboardUser) {
        const token = Policy.tokenFromBytes(yield* random.randomBytes(Policy.tokenBytes))
        const expiresAt = DateTime.addDuration(yield* DateTime.now, heldSignInLifetime)
        yield* users.holdSignIn(user.orgId, user.id, yield* sha256(token), expiresAt)
        return Redacted.make(token)
      })

      const complete = Effect.fn("SecondFactors.complete")(function* (
        token: string,
        code: string,
        clientAddress: string | null
      ) {
        if (!Policy.isWellFormedToken(token)) return yield* wrong
        const held = yield* users.takeSignIn(yield* sha256(token), yield* DateTime.now)
        if (Option.isNone(held)) return yield* wrong
        const user = held.value
        yield* throttled(user, clientAddress, acceptsCode(user.orgId, user.id, code)).pipe(
          Effect.tapError((refused) =>
            refused.reason === "wrong" ? record(user, "sign_in_failed", clientAddress) : Effect.void
          )
        )
        return user
      })

      return SecondFactors.of({ isOn, setup, enable, disable, hold, complete })
    })
  )
}
