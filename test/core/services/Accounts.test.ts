/**
 * The dashboard's access policy and its key actions on the in-memory twins, with virtual time:
 * invites that work once and expire, sessions that go idle, expire and are rotated, throttled
 * sign-in, the CSRF token, roles, organizations kept apart, and the audit of every action.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Context, Duration, Effect, Exit, Fiber, Layer, Option, Redacted } from "effect"
import { Digest, SecureRandom } from "effect/crypto"
import { TestClock } from "effect/testing"
import * as ScryptPasswordHasher from "../../../adapters/passwords/ScryptPasswordHasher.ts"
import * as ShippedCommonPasswords from "../../../adapters/passwords/ShippedCommonPasswords.ts"
import * as OtpauthCodes from "../../../adapters/totp/OtpauthCodes.ts"
import { layerMemory as ApiKeyStoreMemory } from "../../../core/access/memory/ApiKeyStore.ts"
import * as MemoryKeyUsageStore from "../../../core/access/memory/KeyUsageStore.ts"
import { ApiKeys } from "../../../core/access/services/ApiKeys.ts"
import {
  accountThrottle,
  inviteLifetime,
  pairThrottle,
  sessionPolicy
} from "../../../core/accounts/domain/Dashboard.ts"
import { layerMemory as AuditMemory } from "../../../core/accounts/memory/DashboardAuditLog.ts"
import { layerMemory as FactorsMemory } from "../../../core/accounts/memory/SecondFactorStore.ts"
import { layerMemory as SessionsMemory } from "../../../core/accounts/memory/SessionStore.ts"
import * as MemorySignInThrottleStore from "../../../core/accounts/memory/SignInThrottleStore.ts"
import { layerMemory as UsersMemory } from "../../../core/accounts/memory/UserStore.ts"
import { type DashboardAuditEntry, DashboardAuditLog } from "../../../core/accounts/ports/DashboardAuditLog.ts"
import { HashingBusy, PasswordHasher } from "../../../core/accounts/ports/PasswordHasher.ts"
import { Accounts, type SecondStepRequired, type SignInRefused } from "../../../core/accounts/services/Accounts.ts"
import * as HashTurns from "../../../core/accounts/services/HashTurns.ts"
import { SecondFactors } from "../../../core/accounts/services/SecondFactors.ts"
import { addressAttempts } from "../../../core/accounts/services/SignInThrottle.ts"
import { KeyAdministration } from "../../../core/admin/services/KeyAdministration.ts"
import { states as memoryStates } from "../../../core/memory/MemoryStorage.ts"
import * as MemoryOrganizations from "../../../core/shared/memory/Organizations.ts"
import { Organizations } from "../../../core/shared/ports/Organizations.ts"

/** What the audit log was given, every entry, including those of no organization; and a switch to make it fail. */
class AuditTrail extends Context.Service<
  AuditTrail,
  { readonly entries: Array<DashboardAuditEntry>; failing: boolean }
>()("test/AuditTrail") {}

const RecordingAudit = Layer.effect(
  DashboardAuditLog,
  Effect.gen(function* () {
    const trail = yield* AuditTrail
    const log = yield* DashboardAuditLog
    return DashboardAuditLog.of({
      ...log,
      record: (entry) =>
        trail.failing
          ? Effect.die(new Error("the audit log is unavailable"))
          : Effect.tap(log.record(entry), () => Effect.sync(() => trail.entries.push(entry)))
    })
  })
).pipe(Layer.provide(AuditMemory), Layer.provideMerge(Layer.sync(AuditTrail, () => ({ entries: [], failing: false }))))

/** `inFlight`: the places for hashes at sign-in; many unless the cap is what a test checks. */
const servicesOver = (hasher: Layer.Layer<PasswordHasher>, inFlight = 64) =>
  KeyAdministration.layer.pipe(
    Layer.provideMerge(Layer.merge(Accounts.layer, ApiKeys.layerWith({ brand: "pr" }))),
    Layer.provideMerge(SecondFactors.layer.pipe(Layer.provide(OtpauthCodes.layer))),
    Layer.provideMerge(Layer.mergeAll(UsersMemory, FactorsMemory, SessionsMemory, RecordingAudit, ApiKeyStoreMemory)),
    Layer.provideMerge(Layer.merge(MemoryOrganizations.layerMemory, MemoryKeyUsageStore.layerMemory)),
    Layer.provide([
      memoryStates,
      MemorySignInThrottleStore.layerOwnState(),
      MemorySignInThrottleStore.layerStandIn(),
      hasher,
      ShippedCommonPasswords.layer,
      Digest.layerWebCrypto,
      SecureRandom.layerWebCrypto
    ]),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ PASSWORD_HASHES_IN_FLIGHT: String(inFlight) })))
  )

const Services = servicesOver(ScryptPasswordHasher.layerTest)

const password = Redacted.make("correct horse battery staple")
const address = "198.51.100.4"

const errorTag = <A, E extends { readonly _tag: string }>(exit: Exit.Exit<A, E>) =>
  Option.getOrNull(Option.map(Exit.findErrorOption(exit), (error) => error._tag))

/** A signed-in user of a new organization, through an invite as every user is made. */
const onboard = (role: "admin" | "member", email = `${role}-${Math.random()}@example.com`, orgId?: string) =>
  Effect.gen(function* () {
    const access = yield* Accounts
    const org = orgId ?? (yield* (yield* Organizations).create("Org")).id
    const { token } = yield* access.invite(org, email, role)
    const signed = yield* access.acceptInvite(Redacted.value(token), password, address)
    const session = yield* access.authenticate(Redacted.value(signed.sessionToken))
    return { org, email, token: Redacted.value(signed.sessionToken), session }
  })

type Provided = Accounts | KeyAdministration | ApiKeys | Organizations | AuditTrail

const run = <A, E>(effect: Effect.Effect<A, E, Provided>) => effect.pipe(Effect.provide(Services))

/** Over real scrypt parameters dear enough (tens of milliseconds) that sign-ins sent together overlap. */
const runWithOneHashInFlight = <A, E>(effect: Effect.Effect<A, E, Provided>) =>
  effect.pipe(
    Effect.provide(
      servicesOver(Layer.succeed(PasswordHasher, ScryptPasswordHasher.make({ log2N: 14, r: 8, p: 1 }, 1)), 1)
    )
  )

const wrongPassword = Redacted.make("wrong password!")

/**
 * A hasher whose checks take 100 ms of the test clock, with the real one's cap: two at once, one
 * more refused at once. Hashing (invites, the decoy) is instant, so that only sign-ins compete.
 */
const slowHasher = Layer.sync(PasswordHasher, () => {
  let running = 0
  const hashOf = (password: Redacted.Redacted<string>) => `plain$${Redacted.value(password)}`
  return PasswordHasher.of({
    hash: (password) => Effect.succeed(hashOf(password)),
    verify: (password, stored) =>
      Effect.suspend(() => {
        if (running >= 2) return Effect.fail(new HashingBusy({ retryAfterSeconds: 1 }))
        running++
        return Effect.sleep(Duration.millis(100)).pipe(
          Effect.as(stored === hashOf(password)),
          Effect.ensuring(Effect.sync(() => running--))
        )
      })
  })
})

/** What a sign-in was refused with: these users have no second factor, so it never asks for a code. */
const refused = <A, R>(attempt: Effect.Effect<A, SignInRefused | SecondStepRequired, R>) =>
  Effect.flip(Effect.catchTag(attempt, "SecondStepRequired", Effect.die))

/** What each attempt was answered: a refused password ("credentials") or "throttled". */
const refusals = (email: string, addresses: ReadonlyArray<string>) =>
  Effect.flatMap(Accounts, (access) =>
    Effect.forEach(
      addresses,
      (from) => Effect.map(refused(access.signIn(email, wrongPassword, from)), (r) => r.reason),
      {
        concurrency: "unbounded"
      }
    )
  )

const count = (reasons: ReadonlyArray<string>, reason: string) => reasons.filter((r) => r === reason).length

describe("Accounts", () => {
  it.effect(
    "a new password is refused when common (in any case or width); one set full-width signs in typed plainly",
    () =>
      run(
        Effect.gen(function* () {
          const access = yield* Accounts
          const org = yield* (yield* Organizations).create("Org")
          const { token } = yield* access.invite(org.id, "nfkc@example.com", "member")
          for (const common of ["QWERTY123456", "ｑｗｅｒｔｙ１２３４５６", "passwordpassword", "zzzzzzzzzzzzzz"]) {
            const refused = yield* Effect.exit(access.acceptInvite(Redacted.value(token), Redacted.make(common), null))
            assert.strictEqual(errorTag(refused), "PasswordRejected", common)
          }
          // Sixteen code points as typed, ten once composed: too short.
          const composed = `${"e\u0301".repeat(6)}abcd`
          const short = yield* Effect.exit(access.acceptInvite(Redacted.value(token), Redacted.make(composed), null))
          assert.strictEqual(errorTag(short), "PasswordRejected")
          yield* access.acceptInvite(
            Redacted.value(token),
            Redacted.make("ｃｏｒｒｅｃｔ ｈｏｒｓｅ ｂａｔｔｅｒｙ"),
            null
          )
          const signedIn = yield* access.signIn("nfkc@example.com", Redacted.make("correct horse battery"), null)
          assert.strictEqual(signedIn.user.email, "nfkc@example.com")
        })
      )
  )

  it.effect("an invite sets the password once; a used or expired link is refused", () =>
    run(
      Effect.gen(function* () {
        const access = yield* Accounts
        const org = yield* (yield* Organizations).create("Org")
        const { token } = yield* access.invite(org.id, " Ada@Example.com ", "admin")
        assert.strictEqual((yield* access.inviteFor(Redacted.value(token))).email, "ada@example.com")
        const short = yield* Effect.exit(access.acceptInvite(Redacted.value(token), Redacted.make("too short"), null))
        assert.strictEqual(errorTag(short), "PasswordRejected")
        yield* access.acceptInvite(Redacted.value(token), password, null)
        const again = yield* Effect.exit(access.acceptInvite(Redacted.value(token), password, null))
        assert.strictEqual(errorTag(again), "InviteUnusable")

        const late = yield* access.invite(org.id, "late@example.com", "member")
        yield* TestClock.adjust(inviteLifetime)
        assert.strictEqual(errorTag(yield* Effect.exit(access.inviteFor(Redacted.value(late.token)))), "InviteUnusable")
        const expired = yield* Effect.exit(access.acceptInvite(Redacted.value(late.token), password, null))
        assert.strictEqual(errorTag(expired), "InviteUnusable")
        assert.strictEqual(errorTag(yield* Effect.exit(access.inviteFor("not a token"))), "InviteUnusable")
      })
    )
  )

  it.effect("a session goes idle after 30 minutes unused and ends 12 hours after sign-in however busy", () =>
    run(
      Effect.gen(function* () {
        const access = yield* Accounts
        const { token } = yield* onboard("member")
        yield* TestClock.adjust(Duration.subtract(sessionPolicy.idle, Duration.millis(1)))
        yield* access.authenticate(token)
        yield* TestClock.adjust(sessionPolicy.idle)
        assert.strictEqual(errorTag(yield* Effect.exit(access.authenticate(token))), "SessionInvalid")

        const busy = yield* onboard("member")
        const steps = Math.ceil(Duration.toMillis(sessionPolicy.absolute) / Duration.toMillis(Duration.minutes(20)))
        for (let step = 1; step < steps; step++) {
          yield* TestClock.adjust(Duration.minutes(20))
          yield* access.authenticate(busy.token)
        }
        yield* TestClock.adjust(Duration.minutes(20))
        assert.strictEqual(errorTag(yield* Effect.exit(access.authenticate(busy.token))), "SessionInvalid")
      })
    )
  )

  it.effect("sign-in rotates the session; sign-out ends it; sign-out everywhere ends every one of the user's", () =>
    run(
      Effect.gen(function* () {
        const access = yield* Accounts
        const { email, token: first } = yield* onboard("admin")
        const second = yield* access.signIn(email, password, address, first)
        assert.notStrictEqual(Redacted.value(second.sessionToken), first)
        assert.strictEqual(errorTag(yield* Effect.exit(access.authenticate(first))), "SessionInvalid")
        const third = yield* access.signIn(email.toUpperCase(), password, address)
        const session = yield* access.authenticate(Redacted.value(second.sessionToken))
        yield* access.signOutEverywhere(session, address)
        for (const token of [second.sessionToken, third.sessionToken]) {
          assert.strictEqual(errorTag(yield* Effect.exit(access.authenticate(Redacted.value(token)))), "SessionInvalid")
        }
        const fourth = yield* access.signIn(email, password, address)
        yield* access.signOut(yield* access.authenticate(Redacted.value(fourth.sessionToken)), address)
        const after = yield* Effect.exit(access.authenticate(Redacted.value(fourth.sessionToken)))
        assert.strictEqual(errorTag(after), "SessionInvalid")
      })
    )
  )

  it.effect("five wrong passwords lock the account for that address only: its owner elsewhere still gets in", () =>
    run(
      Effect.gen(function* () {
        const access = yield* Accounts
        const { email } = yield* onboard("member")
        const attacker = "203.0.113.9"
        for (let i = 0; i < pairThrottle.failures; i++) {
          const wrong = yield* refused(access.signIn(email, wrongPassword, attacker))
          assert.strictEqual(wrong.reason, "credentials")
        }
        const locked = yield* refused(access.signIn(email, password, attacker))
        assert.strictEqual(locked.reason, "throttled")
        assert.isAbove(locked.retryAfterSeconds, 0)
        yield* access.signIn(email, password, address)
        yield* access.signIn(email, password, "2001:db8:1:2::1")
        yield* TestClock.adjust(Duration.seconds(locked.retryAfterSeconds))
        yield* access.signIn(email, password, attacker)
      })
    )
  )

  it.effect("wrong passwords sent all at once are checked no more often than the limits allow", () =>
    run(
      Effect.gen(function* () {
        const access = yield* Accounts
        const { email } = yield* onboard("member")
        yield* access.signIn(email, password, address)

        const fromOne = yield* refusals(
          email,
          Array.from({ length: 12 }, () => "198.51.100.7")
        )
        assert.strictEqual(count(fromOne, "credentials"), pairThrottle.failures)
        assert.strictEqual(count(fromOne, "throttled"), 12 - pairThrottle.failures)

        // One /64 is one client: its addresses share the limit.
        const fromOneNetwork = yield* refusals(
          email,
          Array.from({ length: 12 }, (_, i) => `2001:db8:5:6::${i + 1}`)
        )
        assert.strictEqual(count(fromOneNetwork, "credentials"), pairThrottle.failures)

        const many = Array.from({ length: accountThrottle.failures }, (_, i) => `192.0.2.${i + 1}`)
        const fromMany = yield* refusals(email, many)
        assert.strictEqual(count(fromMany, "credentials"), accountThrottle.failures - 2 * pairThrottle.failures)

        // The account is now locked for addresses it has not seen, not for its owner's.
        const stranger = yield* refused(access.signIn(email, password, "198.51.100.200"))
        assert.strictEqual(stranger.reason, "throttled")
        yield* access.signIn(email, password, address)
      })
    )
  )

  it.effect("right passwords spend the address's allowance as wrong ones do: past it, even the owner waits", () =>
    run(
      Effect.gen(function* () {
        const access = yield* Accounts
        const { email } = yield* onboard("member")
        const from = "198.51.100.60"
        // The invite's acceptance hashed a password but tested none, so it is not an attempt.
        for (let i = 0; i < addressAttempts.failures; i++) yield* access.signIn(email, password, from)
        const refusal = yield* refused(access.signIn(email, password, from))
        assert.strictEqual(refusal.reason, "throttled")
        assert.isAbove(refusal.retryAfterSeconds, 0)
        yield* access.signIn(email, password, "198.51.100.61")
      })
    )
  )

  it.effect(
    "past the hashes in flight and the address's place in line, a sign-in is refused at once as busy, tests no password and counts no failure",
    () =>
      runWithOneHashInFlight(
        Effect.gen(function* () {
          const access = yield* Accounts
          // Waits for the decoy hash that the service makes at start, which holds the one place.
          yield* refused(access.signIn("nobody@example.com", wrongPassword, "192.0.2.200"))
          const { email } = yield* onboard("member")
          const attacker = "203.0.113.20"
          const together = yield* refusals(
            email,
            Array.from({ length: 6 }, () => attacker)
          )
          // One hashes, the address's line holds two more, and the other three are refused.
          const tested = 1 + HashTurns.bounds.perAddress
          assert.deepStrictEqual([count(together, "credentials"), count(together, "busy")], [tested, 6 - tested])
          // Three failures so far, not six: the pair locks only after the policy's count.
          for (let i = tested; i < pairThrottle.failures; i++) {
            assert.strictEqual((yield* refused(access.signIn(email, wrongPassword, attacker))).reason, "credentials")
          }
          assert.strictEqual((yield* refused(access.signIn(email, wrongPassword, attacker))).reason, "throttled")
        })
      )
  )

  it.effect("text that is not an e-mail address is a wrong attempt of the client's, not an account's", () =>
    run(
      Effect.gen(function* () {
        const access = yield* Accounts
        const { email } = yield* onboard("member")
        const client = "198.51.100.50"
        const answers = yield* Effect.forEach(
          Array.from({ length: 21 }, (_, i) => `not an address ${i}`),
          (text) => Effect.map(refused(access.signIn(text, wrongPassword, client)), (r) => r.reason)
        )
        assert.strictEqual(count(answers, "credentials"), 20)
        assert.strictEqual(answers[20], "throttled")
        assert.strictEqual((yield* refused(access.signIn(email, password, client))).reason, "throttled")
        yield* access.signIn(email, password, "198.51.100.51")
      })
    )
  )

  it.effect(
    "while a flood from 250 addresses fills every hash place, the owner from a known address still gets in",
    () =>
      Effect.provide(
        Effect.gen(function* () {
          const access = yield* Accounts
          const { email } = yield* onboard("member")
          // Signing in once makes the address a known one.
          const first = yield* Effect.forkChild(access.signIn(email, password, address))
          yield* TestClock.adjust(Duration.millis(100))
          yield* Fiber.join(first)

          const flood = Array.from({ length: 250 }, (_, i) => `203.0.${Math.floor(i / 200)}.${(i % 200) + 1}`)
          let signedIn = 0
          // Each round, every flooding address tries a wrong password on an account of its own,
          // staying under its limits, while the places are still busy with the rounds before.
          for (let round = 0; round < 20; round++) {
            yield* Effect.forkChild(
              Effect.forEach(
                flood,
                (from, i) => Effect.exit(access.signIn(`target-${round}-${i}@example.com`, wrongPassword, from)),
                { concurrency: "unbounded", discard: true }
              )
            )
            yield* Effect.yieldNow
            const owner = yield* Effect.forkChild(Effect.exit(access.signIn(email, password, address)))
            yield* TestClock.adjust(Duration.millis(300))
            if (Exit.isSuccess(yield* Fiber.join(owner))) signedIn++
          }
          assert.isAtLeast(signedIn, 19)
        }),
        servicesOver(slowHasher, 2)
      )
  )

  it.effect("a wrong password is audited whether or not the address has an account; a throttled attempt is not", () =>
    run(
      Effect.gen(function* () {
        const access = yield* Accounts
        const trail = yield* AuditTrail
        const { email, session } = yield* onboard("member")
        trail.entries.length = 0
        yield* refused(access.signIn(email, wrongPassword, address))
        yield* refused(access.signIn("nobody@example.com", wrongPassword, address))
        assert.deepStrictEqual(
          trail.entries.map((entry) => [entry.action, entry.user?.userId ?? null, entry.clientAddress]),
          [
            ["sign_in_failed", session.user.id, address],
            ["sign_in_failed", null, address]
          ]
        )
        for (let i = 1; i < pairThrottle.failures; i++) yield* refused(access.signIn(email, wrongPassword, address))
        const audited = trail.entries.length
        assert.strictEqual((yield* refused(access.signIn(email, password, address))).reason, "throttled")
        assert.strictEqual(trail.entries.length, audited)
      })
    )
  )

  it.effect("a new invite for an existing user ends the user's sessions and the address's older links", () =>
    run(
      Effect.gen(function* () {
        const access = yield* Accounts
        const { org, email, token } = yield* onboard("member")
        const older = yield* access.invite(org, email, "member")
        const newer = yield* access.invite(org, email, "admin")
        const renewed = yield* access.acceptInvite(
          Redacted.value(newer.token),
          Redacted.make("a new long password"),
          address
        )
        assert.strictEqual(renewed.user.role, "admin")
        assert.strictEqual(errorTag(yield* Effect.exit(access.authenticate(token))), "SessionInvalid")
        yield* access.authenticate(Redacted.value(renewed.sessionToken))
        const stale = yield* Effect.exit(access.acceptInvite(Redacted.value(older.token), password, address))
        assert.strictEqual(errorTag(stale), "InviteUnusable")
        assert.strictEqual((yield* refused(access.signIn(email, password, address))).reason, "credentials")
      })
    )
  )

  it.effect("the CSRF token is the session's own", () =>
    run(
      Effect.gen(function* () {
        const access = yield* Accounts
        const one = yield* onboard("member")
        const two = yield* onboard("member")
        assert.isTrue(access.checkCsrf(one.session, one.session.csrfToken))
        assert.isFalse(access.checkCsrf(one.session, two.session.csrfToken))
        assert.isFalse(access.checkCsrf(one.session, ""))
      })
    )
  )
})

describe("KeyAdministration", () => {
  it.effect("admins create and revoke their organization's keys; members only read; others' keys are not found", () =>
    run(
      Effect.gen(function* () {
        const keys = yield* KeyAdministration
        const admin = yield* onboard("admin")
        const member = yield* onboard("member", undefined, admin.org)
        const stranger = yield* onboard("admin")
        const actor = (who: typeof admin) => ({ user: who.session.user, clientAddress: address })

        const created = yield* keys.create(actor(admin), "reporting")
        assert.strictEqual(errorTag(yield* Effect.exit(keys.create(actor(member), "nope"))), "NotPermitted")
        assert.strictEqual(errorTag(yield* Effect.exit(keys.create(actor(admin), "  "))), "KeyNameRejected")
        assert.deepStrictEqual(
          (yield* keys.list(actor(member))).map((key) => key.id),
          [created.record.id]
        )
        assert.deepStrictEqual(yield* keys.list(actor(stranger)), [])
        const foreign = yield* Effect.exit(keys.revoke(actor(stranger), created.record.id))
        assert.strictEqual(errorTag(foreign), "ApiKeyNotFound")
        assert.strictEqual(errorTag(yield* Effect.exit(keys.revoke(actor(member), created.record.id))), "NotPermitted")
        const revoked = yield* keys.revoke(actor(admin), created.record.id)
        assert.isNotNull(revoked.revokedAt)
        const verified = yield* Effect.exit((yield* ApiKeys).verify(created.key))
        assert.isTrue(Exit.isFailure(verified))

        const actions = (yield* AuditTrail).entries
          .filter((entry) => entry.user?.orgId === admin.session.user.orgId)
          .map((entry) => [entry.action, entry.subject, entry.clientAddress])
        assert.includeDeepMembers(actions, [
          ["key_created", created.record.id, address],
          ["key_revoked", created.record.id, address],
          ["invite_accepted", null, address]
        ])
      })
    )
  )

  it.effect("a key's name is 1 to 100 characters once trimmed, without control characters", () =>
    run(
      Effect.gen(function* () {
        const keys = yield* KeyAdministration
        const admin = yield* onboard("admin")
        const actor = { user: admin.session.user, clientAddress: address }
        const padded = yield* keys.create(actor, ` ${"n".repeat(100)}   `)
        assert.strictEqual(padded.record.name, "n".repeat(100))
        for (const name of ["n".repeat(101), "line\nbreak", "bell\u0007", "\u001b[31mred"]) {
          assert.strictEqual(errorTag(yield* Effect.exit(keys.create(actor, name))), "KeyNameRejected", name)
        }
      })
    )
  )

  it.effect("a key is revoked once, by its id in any case; revoking it again is not found and not audited", () =>
    run(
      Effect.gen(function* () {
        const keys = yield* KeyAdministration
        const trail = yield* AuditTrail
        const admin = yield* onboard("admin")
        const actor = { user: admin.session.user, clientAddress: address }
        const created = yield* keys.create(actor, "reporting")
        assert.strictEqual((yield* keys.find(actor, created.record.id.toUpperCase()))?.id, created.record.id)
        yield* keys.revoke(actor, created.record.id.toUpperCase())
        const again = yield* Effect.exit(keys.revoke(actor, created.record.id))
        assert.strictEqual(errorTag(again), "ApiKeyNotFound")
        const revocations = trail.entries.filter((entry) => entry.action === "key_revoked")
        assert.deepStrictEqual(
          revocations.map((entry) => entry.subject),
          [created.record.id]
        )
      })
    )
  )

  it.effect("when the audit log cannot be written, no key is revoked and no usable key is created", () =>
    run(
      Effect.gen(function* () {
        const keys = yield* KeyAdministration
        const trail = yield* AuditTrail
        const admin = yield* onboard("admin")
        const actor = { user: admin.session.user, clientAddress: address }
        const existing = yield* keys.create(actor, "existing")
        trail.failing = true
        assert.isTrue(Exit.hasDies(yield* Effect.exit(keys.revoke(actor, existing.record.id))))
        assert.isTrue(Exit.hasDies(yield* Effect.exit(keys.create(actor, "unaudited"))))
        trail.failing = false
        yield* (yield* ApiKeys).verify(existing.key)
        const active = (yield* keys.list(actor)).filter((key) => key.revokedAt === null).map((key) => key.name)
        assert.deepStrictEqual(active, ["existing"])
      })
    )
  )
})
