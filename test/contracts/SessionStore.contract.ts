/**
 * The contract of the `SessionStore` port, one suite run against every implementation (the
 * in-memory twin, PostgreSQL): `describeSessionStore(name, layer)`. The layer provides the store
 * and the `UserStore` and `Organizations` its sessions' users come from. Changes made
 * under another organization's id change nothing, for any session.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, type Layer, Option } from "effect"
import fc from "fast-check"
import { SessionStore } from "../../core/accounts/ports/SessionStore.ts"
import type { UserStore } from "../../core/accounts/ports/UserStore.ts"
import type { Organizations } from "../../core/shared/ports/Organizations.ts"
import { digest, newOrg, newUser } from "./DashboardUsers.setup.ts"

type Services = SessionStore | UserStore | Organizations

const millis = (time: DateTime.Utc) => DateTime.toEpochMillis(time)

// Whole seconds: both stores keep at least millisecond precision.
const startOf = Effect.map(DateTime.now, (now) =>
  DateTime.makeUnsafe(Math.floor(DateTime.toEpochMillis(now) / 1000) * 1000)
)

export const describeSessionStore = <E>(name: string, storeLayer: Layer.Layer<Services, E>) =>
  layer(storeLayer, { excludeTestServices: true, timeout: 120_000 })(`SessionStore contract (${name})`, (it) => {
    it.effect("a session is found by its digest, its last use moves forward, and it is removed", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const user = yield* newUser()
        const tokenHash = digest()
        const at = yield* startOf
        yield* sessions.create(tokenHash, { orgId: user.orgId, userId: user.id, createdAt: at, lastSeenAt: at })
        const found = Option.getOrThrow(yield* sessions.find(tokenHash))
        assert.deepStrictEqual(
          {
            orgId: found.orgId,
            userId: found.userId,
            created: millis(found.createdAt),
            seen: millis(found.lastSeenAt)
          },
          { orgId: user.orgId, userId: user.id, created: millis(at), seen: millis(at) }
        )
        const later = DateTime.addDuration(at, Duration.minutes(5))
        yield* sessions.touch(user.orgId, tokenHash, later)
        assert.strictEqual(millis(Option.getOrThrow(yield* sessions.find(tokenHash)).lastSeenAt), millis(later))
        yield* sessions.remove(user.orgId, tokenHash)
        assert.isTrue(Option.isNone(yield* sessions.find(tokenHash)))
        assert.isTrue(Option.isNone(yield* sessions.find(digest())))
      })
    )

    it.effect("under another organization's id, touching and removing change nothing", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const user = yield* newUser()
        const other = yield* newOrg
        const tokenHash = digest()
        const at = yield* startOf
        yield* sessions.create(tokenHash, { orgId: user.orgId, userId: user.id, createdAt: at, lastSeenAt: at })
        yield* sessions.touch(other.id, tokenHash, DateTime.addDuration(at, Duration.minutes(5)))
        yield* sessions.remove(other.id, tokenHash)
        yield* sessions.removeAllOfUser(other.id, user.id, "removed", at)
        assert.strictEqual(millis(Option.getOrThrow(yield* sessions.find(tokenHash)).lastSeenAt), millis(at))
        assert.isTrue(Option.isNone(yield* sessions.endedReason(tokenHash)), "another organization ends nothing")
      })
    )

    it.effect(
      "removing all of a user's sessions removes those and no other user's, keeping why for each of theirs",
      () =>
        Effect.gen(function* () {
          const sessions = yield* SessionStore
          const run = Effect.runPromiseWith(yield* Effect.context<Services>())
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }), (mine, theirs) =>
                run(
                  Effect.gen(function* () {
                    const user = yield* newUser()
                    const colleague = yield* newUser({ orgId: user.orgId })
                    const at = yield* startOf
                    const make = (owner: typeof user) =>
                      Effect.gen(function* () {
                        const tokenHash = digest()
                        yield* sessions.create(tokenHash, {
                          orgId: owner.orgId,
                          userId: owner.id,
                          createdAt: at,
                          lastSeenAt: at
                        })
                        return tokenHash
                      })
                    const own = yield* Effect.forEach(Array.from({ length: mine }), () => make(user))
                    const kept = yield* Effect.forEach(Array.from({ length: theirs }), () => make(colleague))
                    yield* sessions.removeAllOfUser(user.orgId, user.id, "role_changed", at)
                    for (const tokenHash of own) {
                      assert.isTrue(Option.isNone(yield* sessions.find(tokenHash)))
                      assert.deepStrictEqual(yield* sessions.endedReason(tokenHash), Option.some("role_changed"))
                    }
                    for (const tokenHash of kept) {
                      assert.isTrue(Option.isSome(yield* sessions.find(tokenHash)))
                      assert.isTrue(Option.isNone(yield* sessions.endedReason(tokenHash)))
                    }
                  })
                )
              ),
              { numRuns: 10 }
            )
          )
        })
    )
    it.effect("removing the expired removes the sessions past either limit, of every organization, and no other", () =>
      Effect.gen(function* () {
        const store = yield* SessionStore
        const now = DateTime.toEpochMillis(yield* DateTime.now)
        const at = (minutesAgo: number) => DateTime.makeUnsafe(now - minutesAgo * 60_000)
        const made: Array<{ readonly hash: Uint8Array; readonly kept: boolean }> = []
        for (const [createdAgo, seenAgo, kept] of [
          [600, 1, true],
          [800, 1, false],
          [60, 40, false],
          [60, 20, true]
        ] as const) {
          const user = yield* newUser()
          const hash = digest()
          yield* store.create(hash, {
            orgId: user.orgId,
            userId: user.id,
            createdAt: at(createdAgo),
            lastSeenAt: at(seenAgo)
          })
          made.push({ hash, kept })
        }
        const removed = yield* store.removeExpired(at(720), at(30))
        assert.isAtLeast(removed, 2)
        for (const { hash, kept } of made) assert.strictEqual(Option.isSome(yield* store.find(hash)), kept)
      })
    )
  })
