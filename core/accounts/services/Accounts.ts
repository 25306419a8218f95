/**
 * Who may use the dashboard, as policy over the `UserStore`, `SessionStore`,
 * `DashboardAuditLog` and `PasswordHasher` ports: invites that work once before they expire,
 * passwords set through them (NFKC, at least 12 characters, none a common one:
 * `PasswordRules.ts`), sign-in throttled (`SignInThrottle.ts`), server-side
 * sessions with an idle and an absolute expiry, and the CSRF token bound to each session. Tokens
 * are 256 bits from effect's `SecureRandom`, stored only as SHA-256 digests. A user with a second
 * factor gets a session only once `SecondFactors` accepts their code. Depends on effect and
 * the core alone.
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Redacted, Schedule, Schema } from "effect"
import { Digest, SecureRandom } from "effect/crypto"
import { Base64Url } from "effect/encoding"
import type { OrganizationNotFound } from "../../access/ports/ApiKeyStore.ts"
import * as Policy from "../domain/Dashboard.ts"
import { guessableProblem, normalizePassword, verifyTyped } from "../domain/PasswordRules.ts"
import { CommonPasswords } from "../ports/CommonPasswords.ts"
import { type HashingBusy, PasswordHasher } from "../ports/PasswordHasher.ts"
import type { WrongCode } from "../ports/SecondFactorStore.ts"
import { type EndReason, SessionStore } from "../ports/SessionStore.ts"
import { type Credentials, type DashboardUser, type EmailTaken, type Invite, UserStore } from "../ports/UserStore.ts"
import type { UserAction } from "./ActionLog.ts"
import * as ActionLog from "./ActionLog.ts"
import * as HashTurns from "./HashTurns.ts"
import { type CodeRefused, SecondFactors } from "./SecondFactors.ts"
import { makeThrottle } from "./SignInThrottle.ts"

/** Unknown, already used or expired: the same answer for all three. */
export class InviteUnusable extends Schema.TaggedError<InviteUnusable>()("InviteUnusable", {}) {}

export class InvalidEmail extends Schema.TaggedError<InvalidEmail>()("InvalidEmail", {}) {}

export class PasswordRejected extends Schema.TaggedError<PasswordRejected>()("PasswordRejected", {
  message: Schema.String
}) {}

/**
 * Wrong credentials, too many attempts from here or on this account (`throttled`), or too many
 * sign-ins being checked right now (`busy`: no password was tested).
 */
export class SignInRefused extends Schema.TaggedError<SignInRefused>()("SignInRefused", {
  reason: Schema.Literals(["credentials", "throttled", "busy"]),
  retryAfterSeconds: Schema.Number
}) {}

/** The password was right, and the user's second factor is on: no session until a code completes it. */
export class SecondStepRequired extends Schema.TaggedError<SecondStepRequired>()("SecondStepRequired", {
  /** The held sign-in's token, for the second step's form alone. */
  token: Schema.Redacted(Schema.String)
}) {}

/** No session, or one that was signed out, expired or went idle. */
export class SessionInvalid extends Schema.TaggedError<SessionInvalid>()("SessionInvalid", {}) {}

/** A person at the dashboard, and where the request came from (for the audit log, throttling). */
export interface Actor {
  readonly user: DashboardUser
  readonly clientAddress: string | null
}

export interface SignedIn {
  readonly user: DashboardUser
  /** The new session's token: for the cookie, nowhere else. */
  readonly sessionToken: Redacted.Redacted<string>
}

export interface SignedInWithCode extends SignedIn {
  /** A wrong code entered since the last right one, which the owner should be told of. */
  readonly wrongCodeTried: WrongCode | null
  /** How many recovery codes are left when one was used to sign in; null when the app's code was. */
  readonly recoveryCodesLeft: number | null
}

export interface CurrentSession {
  readonly user: DashboardUser
  readonly tokenHash: Uint8Array
  /** The token forms carry; derived from the session's secret, so it changes with every session. */
  readonly csrfToken: string
}

const utf8 = new TextEncoder()

export class Accounts extends Context.Service<
  Accounts,
  {
    /**
     * A one-time link for the address, voiding the organization's older links for it; an existing
     * user of the organization is signed out everywhere at once. `invitedBy`: the organization's
     * user who sends it, none when an operator does.
     */
    readonly invite: (
      org: string,
      email: string,
      role: Policy.Role,
      invitedBy?: DashboardUser
    ) => Effect.Effect<
      { readonly token: Redacted.Redacted<string>; readonly invite: Invite },
      OrganizationNotFound | EmailTaken | InvalidEmail
    >
    /** The invite a link names, while it can still be used. */
    readonly inviteFor: (token: string) => Effect.Effect<Invite, InviteUnusable>
    /**
     * Sets the password through the invite (once) and signs in, ending the user's other sessions
     * (a new invite for an existing user replaces a password that may be known to someone else).
     */
    readonly acceptInvite: (
      token: string,
      password: Redacted.Redacted<string>,
      clientAddress: string | null,
      replacing?: string
    ) => Effect.Effect<SignedIn, InviteUnusable | PasswordRejected | EmailTaken | HashingBusy>
    /** A fresh session for the right password, ending any session `replacing`. */
    readonly signIn: (
      email: string,
      password: Redacted.Redacted<string>,
      clientAddress: string | null,
      replacing?: string
    ) => Effect.Effect<SignedIn, SignInRefused | SecondStepRequired>
    /** The second step: a session for the right code of the sign-in held under `token`. */
    readonly signInWithCode: (
      token: string,
      code: string,
      clientAddress: string | null,
      replacing?: string
    ) => Effect.Effect<SignedInWithCode, CodeRefused>
    readonly authenticate: (sessionToken: string) => Effect.Effect<CurrentSession, SessionInvalid>
    /** Why the session of this token was ended for its user, while that is kept (none for any other token). */
    readonly endedReason: (sessionToken: string) => Effect.Effect<Option.Option<EndReason>>
    readonly checkCsrf: (session: CurrentSession, presented: string) => boolean
    readonly signOut: (session: CurrentSession, clientAddress: string | null) => Effect.Effect<void>
    readonly signOutEverywhere: (session: CurrentSession, clientAddress: string | null) => Effect.Effect<void>
    /** Records what a signed-in user did (key changes come from `KeyAdministration`). */
    readonly record: (actor: Actor, action: UserAction, subject: string | null) => Effect.Effect<void>
  }
>()("core/Accounts") {
  static readonly layer = Layer.effect(
    Accounts,
    Effect.gen(function* () {
      const users = yield* UserStore
      const sessions = yield* SessionStore
      const actions = yield* ActionLog.make
      const hasher = yield* PasswordHasher
      const common = yield* CommonPasswords
      const digest = yield* Digest.Digest
      const random = yield* SecureRandom.SecureRandom
      const twoFactor = yield* SecondFactors
      const throttle = yield* makeThrottle("password")
      const turns = yield* HashTurns.make(yield* HashTurns.hashesInFlight)

      const sha256 = (text: string) => digest.digest(Digest.sha256, utf8.encode(text))
      const newToken = Effect.map(random.randomBytes(Policy.tokenBytes), Policy.tokenFromBytes)
      // Compared against when an address is unknown, so that a wrong address costs what a wrong
      // password does and the answer's timing does not tell which addresses have accounts. Made
      // at start (made on first use, the first unknown address would cost twice as much), in the
      // background, so that the server is not kept from answering while scrypt runs; retried
      // while hashing is busy, so that a storm at start cannot leave it failed for good (the
      // schedule never ends: orDie only tells the type so).
      const makeDecoy = Effect.flatMap(random.randomBytes(Policy.tokenBytes), (bytes) =>
        hasher.hash(Redacted.make(Policy.tokenFromBytes(bytes)))
      )
      const decoy = yield* Effect.cached(
        makeDecoy.pipe(Effect.retry({ schedule: Schedule.spaced(Duration.millis(100)) }), Effect.orDie)
      )
      yield* Effect.forkScoped(decoy)

      const record = (actor: Actor, action: UserAction, subject: string | null) =>
        actions.byUser({ user: actor.user, action, subject, clientAddress: actor.clientAddress })

      const startSession = Effect.fnUntraced(function* (user: DashboardUser, replacing: string | undefined) {
        if (replacing !== undefined && Policy.isWellFormedToken(replacing)) {
          const previous = yield* sessions.find(yield* sha256(replacing))
          if (Option.isSome(previous)) yield* sessions.remove(previous.value.orgId, yield* sha256(replacing))
        }
        const token = yield* newToken
        const now = yield* DateTime.now
        yield* sessions.create(yield* sha256(token), {
          orgId: user.orgId,
          userId: user.id,
          createdAt: now,
          lastSeenAt: now
        })
        return { user, sessionToken: Redacted.make(token) } satisfies SignedIn
      })

      const invite = Effect.fn("Accounts.invite")(function* (
        org: string,
        email: string,
        role: Policy.Role,
        invitedBy?: DashboardUser
      ) {
        const normalized = Policy.normalizeEmail(email)
        if (normalized === undefined) return yield* new InvalidEmail()
        const token = yield* newToken
        const stored = yield* users.createInvite({
          orgId: org,
          email: normalized,
          role,
          tokenHash: yield* sha256(token),
          expiresAt: DateTime.addDuration(yield* DateTime.now, Policy.inviteLifetime),
          invitedBy
        })
        // Inviting an existing user again is a reset (their password, their role): whoever is
        // signed in as them is signed out at once, not when the link is used.
        const existing = yield* users.findByEmail(normalized)
        if (Option.isSome(existing) && existing.value.user.orgId === stored.orgId) {
          yield* sessions.removeAllOfUser(stored.orgId, existing.value.user.id, "reinvited", yield* DateTime.now)
        }
        return { token: Redacted.make(token), invite: stored }
      })

      const inviteFor = Effect.fn("Accounts.inviteFor")(function* (token: string) {
        if (!Policy.isWellFormedToken(token)) return yield* new InviteUnusable()
        const found = yield* users.findInvite(yield* sha256(token))
        const now = yield* DateTime.now
        if (Option.isNone(found) || found.value.usedAt !== null || !DateTime.isLessThan(now, found.value.expiresAt)) {
          return yield* new InviteUnusable()
        }
        return found.value
      })

      const acceptInvite = Effect.fn("Accounts.acceptInvite")(function* (
        token: string,
        password: Redacted.Redacted<string>,
        clientAddress: string | null,
        replacing?: string
      ) {
        yield* inviteFor(token)
        const normalized = normalizePassword(Redacted.value(password))
        const problem = Policy.passwordProblem(normalized) ?? guessableProblem(normalized, common.isListed)
        if (problem !== undefined) return yield* new PasswordRejected({ message: problem })
        const passwordHash = yield* hasher.hash(Redacted.make(normalized))
        const redeemed = yield* users.redeemInvite(yield* sha256(token), passwordHash, yield* DateTime.now)
        if (Option.isNone(redeemed)) return yield* new InviteUnusable()
        // A new password through a new invite ends whatever was signed in with the old one.
        yield* sessions.removeAllOfUser(redeemed.value.orgId, redeemed.value.id, "invite_redeemed", yield* DateTime.now)
        yield* record({ user: redeemed.value, clientAddress }, "invite_accepted", null)
        return yield* startSession(redeemed.value, replacing)
      })

      const signIn = Effect.fn("Accounts.signIn")(function* (
        email: string,
        password: Redacted.Redacted<string>,
        clientAddress: string | null,
        replacing?: string
      ) {
        // Only text that can be an account's address counts as an account; anything else is a
        // wrong attempt of the client's alone, and takes no room in the throttle's tables.
        const account = Policy.normalizeEmail(email)
        const admission = yield* throttle.admit(account, clientAddress)
        // Refused before any lookup, and not recorded here: the throttle knows nothing of which
        // addresses have accounts, and the refusal is in the request audit log (429).
        if (admission._tag === "Throttled") {
          return yield* new SignInRefused({ reason: "throttled", retryAfterSeconds: admission.retryAfterSeconds })
        }
        const found = account === undefined ? Option.none<Credentials>() : yield* users.findByEmail(account)
        const stored = Option.isSome(found) ? found.value.passwordHash : yield* decoy
        const ticket = {
          address: clientAddress === null ? "" : Policy.throttledAddress(clientAddress),
          account,
          first: admission.first
        }
        const verify = verifyTyped((typed) => hasher.verify(typed, stored), password)
        const matches = yield* turns
          .withTurn(ticket, verify)
          .pipe(
            Effect.catchTag("HashingBusy", (busy) =>
              Effect.andThen(
                admission.attempt.untested,
                new SignInRefused({ reason: "busy", retryAfterSeconds: busy.retryAfterSeconds })
              )
            )
          )
        if (Option.isNone(found) || !matches) {
          // Recorded whether or not the address has an account, so that both cost the same.
          yield* actions.byUser({
            user: Option.isSome(found) ? found.value.user : null,
            action: "sign_in_failed",
            subject: null,
            clientAddress
          })
          return yield* new SignInRefused({ reason: "credentials", retryAfterSeconds: 0 })
        }
        // The password's throttle takes a right password back; wrong codes have a throttle of their own.
        yield* admission.attempt.succeeded
        if (yield* twoFactor.isOn(found.value.user)) {
          return yield* new SecondStepRequired({ token: yield* twoFactor.hold(found.value.user) })
        }
        yield* record({ user: found.value.user, clientAddress }, "sign_in", null)
        return yield* startSession(found.value.user, replacing)
      })

      const signInWithCode = Effect.fn("Accounts.signInWithCode")(function* (
        token: string,
        code: string,
        clientAddress: string | null,
        replacing?: string
      ) {
        const { user, wrongCodeTried, recoveryCodesLeft } = yield* twoFactor.complete(token, code, clientAddress)
        yield* record({ user, clientAddress }, "sign_in", null)
        return {
          ...(yield* startSession(user, replacing)),
          wrongCodeTried,
          recoveryCodesLeft
        } satisfies SignedInWithCode
      })

      const authenticate = Effect.fn("Accounts.authenticate")(function* (token: string) {
        if (!Policy.isWellFormedToken(token)) return yield* new SessionInvalid()
        const tokenHash = yield* sha256(token)
        const found = yield* sessions.find(tokenHash)
        if (Option.isNone(found)) return yield* new SessionInvalid()
        const session = found.value
        const now = yield* DateTime.now
        const nowMillis = DateTime.toEpochMillis(now)
        const lastSeenMillis = DateTime.toEpochMillis(session.lastSeenAt)
        const times = { createdAtMillis: DateTime.toEpochMillis(session.createdAt), lastSeenAtMillis: lastSeenMillis }
        if (Policy.sessionState(times, nowMillis) !== "active") {
          yield* sessions.remove(session.orgId, tokenHash)
          return yield* new SessionInvalid()
        }
        const user = yield* users.findUser(session.orgId, session.userId)
        if (Option.isNone(user)) return yield* new SessionInvalid()
        if (Policy.needsTouch(lastSeenMillis, nowMillis)) yield* sessions.touch(session.orgId, tokenHash, now)
        const csrfToken = Base64Url.encode(yield* sha256(`csrf:${token}`))
        return { user: user.value, tokenHash, csrfToken } satisfies CurrentSession
      })

      const endedReason = Effect.fn("Accounts.endedReason")(function* (token: string) {
        if (!Policy.isWellFormedToken(token)) return Option.none<EndReason>()
        return yield* sessions.endedReason(yield* sha256(token))
      })

      const signOut = Effect.fn("Accounts.signOut")(function* (session: CurrentSession, clientAddress: string | null) {
        yield* sessions.remove(session.user.orgId, session.tokenHash)
        yield* record({ user: session.user, clientAddress }, "sign_out", null)
      })

      const signOutEverywhere = Effect.fn("Accounts.signOutEverywhere")(function* (
        session: CurrentSession,
        clientAddress: string | null
      ) {
        yield* sessions.removeAllOfUser(
          session.user.orgId,
          session.user.id,
          "signed_out_everywhere",
          yield* DateTime.now
        )
        yield* record({ user: session.user, clientAddress }, "sign_out_everywhere", null)
      })

      return Accounts.of({
        invite,
        inviteFor,
        acceptInvite,
        signIn,
        signInWithCode,
        authenticate,
        endedReason,
        checkCsrf: (session, presented) => Policy.constantTimeEqual(session.csrfToken, presented),
        signOut,
        signOutEverywhere,
        record
      })
    })
  )
}
