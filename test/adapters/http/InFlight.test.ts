/**
 * Requests in flight: never more than the caps admitted at once, whatever the order of entries
 * and exits, and what was held is given back however a request ends (answer, failure,
 * interruption).
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import fc from "fast-check"
import * as InFlight from "../../../adapters/http/api/InFlight.ts"
import type { ApiKeyId, OrgId } from "../../../core/shared/domain/Ids.ts"

const owner = (key: number, org: number) => ({ keyId: `key-${key}` as ApiKeyId, orgId: `org-${org}` as OrgId })
const refused = (scope: "key" | "organization") => Effect.fail(scope)

describe("InFlight", () => {
  it.effect("admits at most the caps at once, per key and per organization", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.record({ perKey: fc.integer({ min: 1, max: 4 }), perOrganization: fc.integer({ min: 1, max: 6 }) }),
          fc.array(fc.record({ key: fc.integer({ min: 0, max: 3 }), org: fc.integer({ min: 0, max: 1 }) }), {
            maxLength: 30
          }),
          (policy, arrivals) =>
            Effect.runPromise(
              Effect.gen(function* () {
                const inFlight = yield* InFlight.make(policy)
                const gate = yield* Deferred.make<void>()
                const admitted: Array<{ key: number; org: number }> = []
                const fibers = []
                for (const arrival of arrivals) {
                  const key = arrival.key + arrival.org * 10
                  const held = Effect.sync(() => admitted.push({ key, org: arrival.org })).pipe(
                    Effect.andThen(Deferred.await(gate))
                  )
                  fibers.push(
                    yield* Effect.forkChild(Effect.exit(inFlight.admit(owner(key, arrival.org), held, refused)))
                  )
                  yield* Effect.yieldNow
                }
                const perKey = new Map<number, number>()
                const perOrg = new Map<number, number>()
                for (const { key, org } of admitted) {
                  perKey.set(key, (perKey.get(key) ?? 0) + 1)
                  perOrg.set(org, (perOrg.get(org) ?? 0) + 1)
                }
                for (const n of perKey.values()) assert.isAtMost(n, policy.perKey)
                for (const n of perOrg.values()) assert.isAtMost(n, policy.perOrganization)
                yield* Deferred.succeed(gate, undefined)
                yield* Fiber.joinAll(fibers)
              })
            )
        ),
        { numRuns: 50 }
      )
    )
  )

  it.effect("gives back what a request held, however it ended", () =>
    Effect.gen(function* () {
      const inFlight = yield* InFlight.make({ perKey: 1, perOrganization: 1 })
      const who = owner(1, 1)
      yield* Effect.exit(inFlight.admit(who, Effect.fail("broken"), refused))
      yield* Effect.exit(inFlight.admit(who, Effect.die("defect"), refused))
      const started = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(
        inFlight.admit(who, Effect.andThen(Deferred.succeed(started, undefined), Effect.never), refused)
      )
      yield* Deferred.await(started)
      assert.strictEqual(yield* Effect.flip(inFlight.admit(who, Effect.succeed(1), refused)), "key")
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(yield* inFlight.admit(who, Effect.succeed(1), refused), 1)
    })
  )
})
