/**
 * The contract of the `DashboardAuditLog` port, one suite run against every implementation (the
 * in-memory twin, PostgreSQL): `describeDashboardAuditLog(name, layer)`. An organization reads
 * its own entries only, newest first, the later recorded first at the same instant; a failed
 * sign-in of no user is stored and read by no organization.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, type Layer } from "effect"
import fc from "fast-check"
import { type DashboardAction, DashboardAuditLog } from "../../core/ports/DashboardAuditLog.ts"
import type { DashboardUserStore } from "../../core/ports/DashboardUserStore.ts"
import type { Organizations } from "../../core/ports/Organizations.ts"
import { newUser } from "./DashboardUsers.setup.ts"

type Services = DashboardAuditLog | DashboardUserStore | Organizations

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
          whose: fc.constantFrom("mine", "stranger's", "nobody's")
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
                          : null,
                    action: e.whose === "nobody's" ? ("sign_in_failed" as const) : e.action,
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
  })
