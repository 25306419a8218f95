/**
 * The contract of the `DashboardAuditLog` port, one suite run against every implementation (the
 * in-memory twin, PostgreSQL): `describeDashboardAuditLog(name, layer)`. An organization reads
 * its own entries only, newest first, the later recorded first at the same instant; a failed
 * sign-in of no user is stored and read by no organization, the service's own entry (no user)
 * by its organization; filtered pages partition the
 * matches; the retention removes what is older than it, and nothing else.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, type Layer } from "effect"
import fc from "fast-check"
import {
  type DashboardAction,
  DashboardAuditLog,
  type DashboardAuditPosition
} from "../../core/accounts/ports/DashboardAuditLog.ts"
import type { UserStore } from "../../core/accounts/ports/UserStore.ts"
import type { Organizations } from "../../core/shared/ports/Organizations.ts"
import { newUser } from "./DashboardUsers.setup.ts"

type Services = DashboardAuditLog | UserStore | Organizations

const actions: ReadonlyArray<DashboardAction> = ["sign_in", "sign_in_failed", "key_created", "key_revoked", "sign_out"]

export const describeDashboardAuditLog = <E>(name: string, logLayer: Layer.Layer<Services, E>) =>
  layer(logLayer, { excludeTestServices: true, timeout: 120_000 })(`DashboardAuditLog contract (${name})`, (it) => {
    it.effect("an organization reads its own entries, newest first, as recorded", () =>
      Effect.gen(function* () {
        const log = yield* DashboardAuditLog
        const run = Effect.runPromiseWith(yield* Effect.context<Services>())
        const entry = fc.record({
          action: fc.constantFrom(...actions),
          // Offsets in whole milliseconds, with repeats: ties keep the order of recording reversed.
          offset: fc.integer({ min: 0, max: 5 }),
          subject: fc.option(fc.uuid(), { nil: null }),
          whose: fc.constantFrom("mine", "stranger's", "nobody's", "the service's")
        })
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.array(entry, { maxLength: 8 }), (generated) =>
              run(
                Effect.gen(function* () {
                  const user = yield* newUser()
                  const stranger = yield* newUser()
                  const base = DateTime.toEpochMillis(yield* DateTime.now)
                  const recorded = generated.map((e) => ({
                    at: DateTime.makeUnsafe(base + e.offset),
                    user:
                      e.whose === "mine"
                        ? { orgId: user.orgId, userId: user.id }
                        : e.whose === "stranger's"
                          ? { orgId: stranger.orgId, userId: stranger.id }
                          : e.whose === "the service's"
                            ? { orgId: user.orgId, userId: null }
                            : null,
                    action:
                      e.whose === "nobody's"
                        ? ("sign_in_failed" as const)
                        : e.whose === "the service's"
                          ? ("webhook_endpoint_disabled" as const)
                          : e.action,
                    subject: e.subject,
                    clientAddress: "192.0.2.7"
                  }))
                  for (const e of recorded) yield* log.record(e)
                  const expected = recorded
                    .map((e, order) => ({ e, order }))
                    .filter(({ e }) => e.user?.orgId === user.orgId)
                    .sort(
                      (a, b) => DateTime.toEpochMillis(b.e.at) - DateTime.toEpochMillis(a.e.at) || b.order - a.order
                    )
                    .map(({ e }) => ({ ...e, at: DateTime.toEpochMillis(e.at) }))
                  const read = (yield* log.recent(user.orgId, 100)).map((e) => ({
                    ...e,
                    at: DateTime.toEpochMillis(e.at)
                  }))
                  assert.deepStrictEqual(read, expected)
                  assert.strictEqual((yield* log.recent(user.orgId, 1)).length, Math.min(1, expected.length))
                })
              )
            ),
            { numRuns: 15 }
          )
        )
      })
    )
    it.effect("pages partition a filtered search: every matching entry once, in order, whatever the page size", () =>
      Effect.gen(function* () {
        const log = yield* DashboardAuditLog
        const user = yield* newUser()
        const other = yield* newUser({ orgId: user.orgId })
        const base = DateTime.toEpochMillis(yield* DateTime.now)
        const run = Effect.runPromiseWith(yield* Effect.context<Services>())
        for (let i = 0; i < 30; i++) {
          yield* log.record({
            at: DateTime.makeUnsafe(base + (i % 7)),
            user: i % 3 === 0 ? { orgId: other.orgId, userId: other.id } : { orgId: user.orgId, userId: user.id },
            action: i % 2 === 0 ? "sign_in_failed" : "key_created",
            subject: `${i}`,
            clientAddress: null
          })
        }
        const all = yield* log.search({ orgId: user.orgId, limit: 100 })
        assert.strictEqual(all.length, 30)
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.integer({ min: 1, max: 9 }),
              fc.constantFrom(undefined, "sign_in_failed" as const, "key_created" as const),
              fc.constantFrom(undefined, "user", "other"),
              (size, action, whose) =>
                run(
                  Effect.gen(function* () {
                    const userId = whose === undefined ? undefined : whose === "user" ? user.id : other.id
                    const expected = all
                      .filter(({ entry }) => action === undefined || entry.action === action)
                      .filter(({ entry }) => userId === undefined || entry.user?.userId === userId)
                      .map(({ entry }) => entry.subject)
                    const paged: Array<string | null> = []
                    let before: DashboardAuditPosition | undefined
                    for (;;) {
                      const page = yield* log.search({ orgId: user.orgId, action, userId, before, limit: size })
                      paged.push(...page.map(({ entry }) => entry.subject))
                      if (page.length < size) break
                      before = page.at(-1)!.position
                    }
                    assert.deepStrictEqual(paged, expected)
                  })
                )
            ),
            { numRuns: 20 }
          )
        )
      })
    )

    it.effect("the retention removes the entries older than its start, of every organization, and no other", () =>
      Effect.gen(function* () {
        const log = yield* DashboardAuditLog
        const user = yield* newUser()
        const stranger = yield* newUser()
        const now = DateTime.toEpochMillis(yield* DateTime.now)
        const entry = (owner: typeof user, daysAgo: number) => ({
          at: DateTime.makeUnsafe(now - daysAgo * 86_400_000),
          user: { orgId: owner.orgId, userId: owner.id },
          action: "sign_in" as const,
          subject: `${daysAgo}`,
          clientAddress: null
        })
        for (const daysAgo of [500, 401, 399, 1]) {
          yield* log.record(entry(user, daysAgo))
          yield* log.record(entry(stranger, daysAgo))
        }
        const removed = yield* log.prune(DateTime.makeUnsafe(now - 400 * 86_400_000))
        assert.isAtLeast(removed, 4)
        for (const owner of [user, stranger]) {
          const kept = yield* log.search({ orgId: owner.orgId, limit: 10 })
          assert.deepStrictEqual(
            kept.map(({ entry }) => entry.subject),
            ["1", "399"]
          )
        }
      })
    )
  })
