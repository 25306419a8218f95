/**
 * The contract of the `UserStore` port, one suite run against every implementation (the in-memory
 * twin, PostgreSQL): `describeUserStore(name, layer)`. The layer provides the store and the
 * `Organizations` its users belong to.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, Exit, type Layer, Option } from "effect"
import { UserStore } from "../../core/accounts/ports/UserStore.ts"
import type { OrgId, UserId } from "../../core/shared/domain/Ids.ts"
import type { Organizations } from "../../core/shared/ports/Organizations.ts"
import { digest, freshEmail, newOrg, newUser } from "./DashboardUsers.setup.ts"

type Services = UserStore | Organizations

const errorTag = <A, E extends { readonly _tag: string }>(exit: Exit.Exit<A, E>) =>
  Option.getOrNull(Option.map(Exit.findErrorOption(exit), (error) => error._tag))

const millis = (time: DateTime.Utc | null) => (time === null ? null : DateTime.toEpochMillis(time))

const invite = (
  orgId: string,
  role: "admin" | "member" = "member",
  lifetime = Duration.hours(1),
  email = freshEmail()
) =>
  Effect.gen(function* () {
    const tokenHash = digest()
    const expiresAt = DateTime.addDuration(yield* DateTime.now, lifetime)
    const stored = yield* (yield* UserStore).createInvite({ orgId, email, role, tokenHash, expiresAt })
    return { tokenHash, stored, email, expiresAt }
  })

export const describeUserStore = <E>(name: string, storeLayer: Layer.Layer<Services, E>) =>
  layer(storeLayer, { excludeTestServices: true, timeout: 120_000 })(`UserStore contract (${name})`, (it) => {
    it.effect("an invite is found by its digest with what it was created with; another digest finds nothing", () =>
      Effect.gen(function* () {
        const store = yield* UserStore
        const org = yield* newOrg
        const { tokenHash, email, expiresAt } = yield* invite(org.id, "admin")
        const found = Option.getOrThrow(yield* store.findInvite(tokenHash))
        assert.strictEqual(found.orgId, org.id)
        assert.strictEqual(found.email, email)
        assert.strictEqual(found.role, "admin")
        assert.strictEqual(found.usedAt, null)
        assert.strictEqual(millis(found.expiresAt), millis(expiresAt))
        assert.isTrue(Option.isNone(yield* store.findInvite(digest())))
      })
    )

    it.effect("an invite is redeemed once: its user is found by address and by id, in its organization only", () =>
      Effect.gen(function* () {
        const store = yield* UserStore
        const org = yield* newOrg
        const { tokenHash, email } = yield* invite(org.id, "member")
        const now = yield* DateTime.now
        const user = Option.getOrThrow(yield* store.redeemInvite(tokenHash, "hash-1", now))
        assert.deepInclude(user, { orgId: org.id, email, role: "member" })
        assert.isTrue(Option.isNone(yield* store.redeemInvite(tokenHash, "hash-2", now)))
        const credentials = Option.getOrThrow(yield* store.findByEmail(email))
        assert.strictEqual(credentials.passwordHash, "hash-1")
        assert.strictEqual(credentials.user.id, user.id)
        assert.isTrue(Option.isSome(yield* store.findUser(org.id, user.id)))
        const other = yield* newOrg
        assert.isTrue(Option.isNone(yield* store.findUser(other.id, user.id)))
        assert.isTrue(Option.isNone(yield* store.findUser(org.id, randomUUID() as UserId)))
        assert.isNotNull(Option.getOrThrow(yield* store.findInvite(tokenHash)).usedAt)
      })
    )

    it.effect("an invite is not redeemed at or after its expiry", () =>
      Effect.gen(function* () {
        const store = yield* UserStore
        const org = yield* newOrg
        const { tokenHash, expiresAt } = yield* invite(org.id)
        assert.isTrue(Option.isNone(yield* store.redeemInvite(tokenHash, "hash", expiresAt)))
        assert.isTrue(Option.isNone(yield* store.redeemInvite(digest(), "hash", yield* DateTime.now)))
        assert.strictEqual(Option.getOrThrow(yield* store.findInvite(tokenHash)).usedAt, null)
      })
    )

    it.effect("a new invite of the same organization sets the user's password and role again, keeping the user", () =>
      Effect.gen(function* () {
        const store = yield* UserStore
        const first = yield* newUser({ role: "member" })
        const again = yield* invite(first.orgId, "admin", Duration.hours(1), first.email)
        const user = Option.getOrThrow(yield* store.redeemInvite(again.tokenHash, "hash-new", yield* DateTime.now))
        assert.strictEqual(user.id, first.id)
        assert.strictEqual(user.role, "admin")
        assert.strictEqual(Option.getOrThrow(yield* store.findByEmail(first.email)).passwordHash, "hash-new")
      })
    )

    it.effect("an unknown organization and another organization's address are refused", () =>
      Effect.gen(function* () {
        const store = yield* UserStore
        const expiresAt = DateTime.addDuration(yield* DateTime.now, Duration.hours(1))
        for (const orgId of [randomUUID(), "not-a-uuid"]) {
          const refused = yield* Effect.exit(
            store.createInvite({ orgId, email: freshEmail(), role: "admin", tokenHash: digest(), expiresAt })
          )
          assert.strictEqual(errorTag(refused), "OrganizationNotFound")
        }
        const user = yield* newUser()
        const other = yield* newOrg
        const taken = yield* Effect.exit(
          store.createInvite({ orgId: other.id, email: user.email, role: "admin", tokenHash: digest(), expiresAt })
        )
        assert.strictEqual(errorTag(taken), "EmailTaken")
        assert.isTrue(Option.isNone(yield* store.findUser(other.id as OrgId, user.id)))
      })
    )
    it.effect(
      "redeeming an invite uses up the address's other unused invites in that organization, not elsewhere",
      () =>
        Effect.gen(function* () {
          const store = yield* UserStore
          const org = yield* newOrg
          const email = freshEmail()
          const first = yield* invite(org.id, "member", Duration.hours(1), email)
          const second = yield* invite(org.id, "admin", Duration.hours(1), email)
          const unrelated = yield* invite(org.id, "member")
          const now = yield* DateTime.now
          yield* store.redeemInvite(second.tokenHash, "hash-2", now)
          assert.isNotNull(Option.getOrThrow(yield* store.findInvite(first.tokenHash)).usedAt)
          assert.isTrue(Option.isNone(yield* store.redeemInvite(first.tokenHash, "hash-1", now)))
          assert.strictEqual(Option.getOrThrow(yield* store.findByEmail(email)).passwordHash, "hash-2")
          assert.strictEqual(Option.getOrThrow(yield* store.findInvite(unrelated.tokenHash)).usedAt, null)
        })
    )

    it.effect("an address invited by two organizations belongs to the first that redeems; the other is refused", () =>
      Effect.gen(function* () {
        const store = yield* UserStore
        const email = freshEmail()
        const [one, two] = [yield* newOrg, yield* newOrg]
        const first = yield* invite(one.id, "admin", Duration.hours(1), email)
        const second = yield* invite(two.id, "admin", Duration.hours(1), email)
        const now = yield* DateTime.now
        yield* store.redeemInvite(first.tokenHash, "hash-1", now)
        const refused = yield* Effect.exit(store.redeemInvite(second.tokenHash, "hash-2", now))
        assert.strictEqual(errorTag(refused), "EmailTaken")
        assert.strictEqual(Option.getOrThrow(yield* store.findInvite(second.tokenHash)).usedAt, null)
        const owner = Option.getOrThrow(yield* store.findByEmail(email))
        assert.deepStrictEqual([owner.user.orgId, owner.passwordHash], [one.id, "hash-1"])
      })
    )
    it.effect("pending invites are the organization's unused, unexpired ones; revoking voids an address's", () =>
      Effect.gen(function* () {
        const store = yield* UserStore
        const org = yield* newOrg
        const other = yield* newOrg
        const kept = yield* invite(org.id, "admin")
        const revoked = yield* invite(org.id, "member")
        const redeemed = yield* invite(org.id, "member")
        const elsewhere = yield* invite(other.id, "member")
        const now = yield* DateTime.now
        yield* store.redeemInvite(redeemed.tokenHash, "hash-1", now)
        const emailsOf = (invites: ReadonlyArray<{ readonly email: string }>) => invites.map((i) => i.email).sort()
        assert.deepStrictEqual(emailsOf(yield* store.pendingInvites(org.id, now)), [kept.email, revoked.email].sort())
        assert.deepStrictEqual(
          yield* store.pendingInvites(org.id, DateTime.addDuration(now, Duration.hours(2))),
          [],
          "expired ones are not pending"
        )
        assert.isFalse(
          yield* store.revokeInvites(other.id, revoked.email, now),
          "another organization's revokes nothing"
        )
        assert.isFalse(yield* store.revokeInvites(org.id, redeemed.email, now), "a used one is not revoked")
        assert.isTrue(yield* store.revokeInvites(org.id, revoked.email, now))
        assert.isTrue(Option.isNone(yield* store.redeemInvite(revoked.tokenHash, "hash-2", now)))
        assert.deepStrictEqual(emailsOf(yield* store.pendingInvites(org.id, now)), [kept.email])
        assert.deepStrictEqual(emailsOf(yield* store.pendingInvites(other.id, now)), [elsewhere.email])
      })
    )

    it.effect("an invite names the user who sent it, wherever it is read; an operator's names none", () =>
      Effect.gen(function* () {
        const store = yield* UserStore
        const org = yield* newOrg
        const sender = yield* newUser({ orgId: org.id })
        const now = yield* DateTime.now
        const expiresAt = DateTime.addDuration(now, Duration.hours(1))
        const sentHash = digest()
        const sent = yield* store.createInvite({
          orgId: org.id,
          email: freshEmail(),
          role: "member",
          tokenHash: sentHash,
          expiresAt,
          invitedBy: sender
        })
        const byOperator = yield* invite(org.id)
        assert.strictEqual(sent.invitedBy, sender.email)
        assert.strictEqual(byOperator.stored.invitedBy, null)
        assert.strictEqual(Option.getOrThrow(yield* store.findInvite(sentHash)).invitedBy, sender.email)
        const pending = yield* store.pendingInvites(org.id, now)
        assert.deepStrictEqual(
          pending.map((i) => [i.email, i.invitedBy]).sort(),
          [
            [sent.email, sender.email],
            [byOperator.email, null]
          ].sort()
        )
      })
    )

    it.effect("a newer invite of an address voids the organization's older ones at once, not another's", () =>
      Effect.gen(function* () {
        const store = yield* UserStore
        const org = yield* newOrg
        const email = freshEmail()
        const older = yield* invite(org.id, "admin", Duration.hours(1), email)
        const other = yield* invite(org.id, "member")
        yield* invite(org.id, "member", Duration.hours(1), email)
        assert.isNotNull(Option.getOrThrow(yield* store.findInvite(older.tokenHash)).usedAt)
        assert.isTrue(Option.isNone(yield* store.redeemInvite(older.tokenHash, "hash-1", yield* DateTime.now)))
        assert.strictEqual(Option.getOrThrow(yield* store.findInvite(other.tokenHash)).usedAt, null)
      })
    )

    it.effect(
      "a role is changed; a removed user is listed as removed, found no more, and let in again by an invite",
      () =>
        Effect.gen(function* () {
          const store = yield* UserStore
          const org = yield* newOrg
          const user = yield* newUser({ orgId: org.id, role: "admin" })
          const keeper = yield* newUser({ orgId: org.id, role: "admin" })
          assert.strictEqual(yield* store.changeRole(user.orgId, user.id, "member"), "done")
          assert.strictEqual(Option.getOrThrow(yield* store.findUser(user.orgId, user.id)).role, "member")
          const pending = yield* invite(org.id, "admin", Duration.hours(1), user.email)
          const now = yield* DateTime.now
          assert.strictEqual(yield* store.removeUser(user.orgId, user.id, now), "done")
          assert.strictEqual(yield* store.removeUser(user.orgId, user.id, now), "missing", "once")
          assert.isTrue(Option.isNone(yield* store.findUser(user.orgId, user.id)))
          assert.isTrue(Option.isNone(yield* store.findByEmail(user.email)))
          assert.strictEqual(yield* store.changeRole(user.orgId, user.id, "admin"), "missing")
          assert.isNotNull(Option.getOrThrow(yield* store.findInvite(pending.tokenHash)).usedAt, "its link voided")
          const listed = yield* store.listUsers(org.id)
          assert.deepStrictEqual(
            listed.filter((member) => member.id === user.id).map((member) => millis(member.removedAt)),
            [millis(now)]
          )
          assert.strictEqual(listed.find((member) => member.id === keeper.id)?.removedAt, null)
          const back = yield* invite(org.id, "member", Duration.hours(1), user.email)
          const again = Option.getOrThrow(yield* store.redeemInvite(back.tokenHash, "hash-2", yield* DateTime.now))
          assert.strictEqual(again.id, user.id)
          assert.isTrue(Option.isSome(yield* store.findByEmail(user.email)))
          assert.strictEqual((yield* store.listUsers(org.id)).find((member) => member.id === user.id)?.removedAt, null)
          const stranger = yield* newOrg
          assert.deepStrictEqual(yield* store.listUsers(stranger.id), [])
          assert.strictEqual(
            yield* store.removeUser(stranger.id, user.id, now),
            "missing",
            "another organization's user"
          )
        })
    )

    it.effect("the last admin is neither demoted nor removed; an organization with no admin may get one", () =>
      Effect.gen(function* () {
        const store = yield* UserStore
        const admin = yield* newUser({ role: "admin" })
        const member = yield* newUser({ orgId: admin.orgId, role: "member" })
        assert.strictEqual(yield* store.changeRole(admin.orgId, admin.id, "member"), "last_admin")
        assert.strictEqual(yield* store.removeUser(admin.orgId, admin.id, yield* DateTime.now), "last_admin")
        assert.strictEqual(Option.getOrThrow(yield* store.findUser(admin.orgId, admin.id)).role, "admin")
        assert.strictEqual(yield* store.removeUser(admin.orgId, member.id, yield* DateTime.now), "done")
        const orphans = yield* newUser({ role: "member" })
        assert.strictEqual(yield* store.changeRole(orphans.orgId, orphans.id, "admin"), "done", "an admin restored")
        // A re-invite as member is a role change too: the last admin redeems it and stays admin.
        const reinvite = yield* invite(admin.orgId, "member", Duration.hours(1), admin.email)
        const redeemed = Option.getOrThrow(yield* store.redeemInvite(reinvite.tokenHash, "hash-2", yield* DateTime.now))
        assert.strictEqual(redeemed.role, "admin")
        assert.strictEqual(Option.getOrThrow(yield* store.findUser(admin.orgId, admin.id)).role, "admin")
      })
    )

    it.effect("two admins demoting or removing each other at once leave the organization one admin", () =>
      Effect.gen(function* () {
        const store = yield* UserStore
        for (let round = 0; round < 8; round++) {
          const first = yield* newUser({ role: "admin" })
          const second = yield* newUser({ orgId: first.orgId, role: "admin" })
          const now = yield* DateTime.now
          const outcomes = yield* Effect.all(
            [
              round % 2 === 0
                ? store.changeRole(first.orgId, second.id, "member")
                : store.removeUser(first.orgId, second.id, now),
              store.changeRole(first.orgId, first.id, "member")
            ],
            { concurrency: "unbounded" }
          )
          assert.sameMembers(outcomes, ["done", "last_admin"], `round ${round}`)
          const admins = (yield* store.listUsers(first.orgId)).filter(
            (user) => user.removedAt === null && user.role === "admin"
          )
          assert.lengthOf(admins, 1, `round ${round}`)
        }
      })
    )
  })
