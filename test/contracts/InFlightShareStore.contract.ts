/**
 * Requests in flight across processes, each holding leased shares of the budgets
 * (`core/access/services/LeasedInFlight.ts`), one suite run against every `InFlightShareStore`
 * (the memory twin, PostgreSQL): `describeInFlightShares(name, storage, clock)`. Each case makes
 * its processes (an instance each, named apart, over the one store) and owners of its own. Time
 * passes by the test clock in memory, and for real in PostgreSQL, whose leases end by its clock.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Exit, type Layer, Scope } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { InFlightShareStore } from "../../core/access/ports/InFlightShareStore.ts"
import type { InFlightAdmission, InFlightCaps } from "../../core/access/ports/InFlightStore.ts"
import * as LeasedInFlight from "../../core/access/services/LeasedInFlight.ts"
import { eventually } from "../support/Eventually.ts"

export interface SharesClock {
  /** Runs a case: on the test clock, or on the wall clock. */
  readonly runs: "test clock" | "wall clock"
  readonly timing: LeasedInFlight.LeaseTiming
}

const admitted = (admission: InFlightAdmission) => {
  if (admission._tag !== "Admitted") assert.fail(`refused (${admission.scope})`)
  return admission.release
}

/** The grants a process asked of the store. */
const counted = Effect.gen(function* () {
  const store = yield* InFlightShareStore
  const calls = { grants: 0 }
  const service = InFlightShareStore.of({
    ...store,
    grant: (...args) =>
      Effect.suspend(() => {
        calls.grants += 1
        return store.grant(...args)
      })
  })
  return { calls, service }
})

export const describeInFlightShares = (
  name: string,
  storage: Layer.Layer<InFlightShareStore, unknown>,
  clock: SharesClock
) =>
  layer(storage, { timeout: 60_000, excludeTestServices: clock.runs === "wall clock" })(
    `requests in flight across processes (${name})`,
    (it) => {
      const { timing } = clock

      /** A process, living in `scope` (the case's unless given): closing it stops the process. */
      const startProcess = (leases: LeasedInFlight.LeaseTiming = timing, scope?: Scope.Scope) =>
        Effect.gen(function* () {
          const in_ = scope ?? (yield* Scope.Scope)
          return yield* LeasedInFlight.make(randomUUID(), leases).pipe(Scope.provide(in_))
        })

      /** Until `check` holds, as time passes: a heartbeat at a time on the test clock, polled on the wall clock. */
      const whenTimePasses = <E, R>(what: string, check: Effect.Effect<boolean, E, R>) =>
        clock.runs === "test clock"
          ? Effect.gen(function* () {
              for (let beat = 0; beat < 20; beat++) {
                if (yield* check) return
                yield* TestClock.adjust(timing.heartbeat)
              }
              return yield* Effect.die(new Error(`never saw ${what}`))
            })
          : eventually(what, check, { attempts: 200, interval: Duration.millis(25) })

      const owners = () => {
        const orgId = randomUUID()
        return { orgId, key: { keyId: randomUUID(), orgId }, otherKey: { keyId: randomUUID(), orgId } }
      }
      const caps: InFlightCaps = { perKey: 3, perOrganization: 5 }

      it.effect("a process alone grows its share to the whole cap; another is refused past the cap across both", () =>
        Effect.gen(function* () {
          const [one, two] = [yield* startProcess(), yield* startProcess()]
          const { key, otherKey } = owners()
          for (let i = 0; i < caps.perKey; i++) admitted(yield* one.admit(key, caps))
          assert.deepStrictEqual(yield* two.admit(key, caps), { _tag: "Refused", scope: "key" })
          admitted(yield* two.admit(otherKey, caps))
          admitted(yield* one.admit(otherKey, caps))
          // The organization's 5 are taken: 3 and 1 at one process, 1 at the other.
          assert.deepStrictEqual(yield* two.admit(otherKey, caps), { _tag: "Refused", scope: "organization" })
          assert.deepStrictEqual(yield* one.admit(otherKey, caps), { _tag: "Refused", scope: "organization" })
        }).pipe(Effect.scoped)
      )

      it.effect("one tenant holding its whole budget takes nothing of another's", () =>
        Effect.gen(function* () {
          const [one, two] = [yield* startProcess(), yield* startProcess()]
          const busy = owners()
          const other = owners()
          for (let i = 0; i < caps.perKey; i++) admitted(yield* one.admit(busy.key, caps))
          for (let i = 0; i < 2; i++) admitted(yield* one.admit(busy.otherKey, caps))
          for (let i = 0; i < caps.perKey; i++) admitted(yield* two.admit(other.key, caps))
          for (let i = 0; i < 2; i++) admitted(yield* one.admit(other.otherKey, caps))
        }).pipe(Effect.scoped)
      )

      it.effect("a process that stops gives its shares back at once", () =>
        Effect.gen(function* () {
          const scope = yield* Scope.make()
          const one = yield* startProcess(timing, scope)
          const two = yield* startProcess()
          const { key } = owners()
          const releases = []
          for (let i = 0; i < caps.perKey; i++) releases.push(admitted(yield* one.admit(key, caps)))
          yield* Effect.all(releases)
          yield* Scope.close(scope, Exit.void)
          for (let i = 0; i < caps.perKey; i++) admitted(yield* two.admit(key, caps))
        }).pipe(Effect.scoped)
      )

      it.effect("a share left idle returns to the others within two heartbeats", () =>
        Effect.gen(function* () {
          const [one, two] = [yield* startProcess(), yield* startProcess()]
          const { key } = owners()
          const releases = []
          for (let i = 0; i < caps.perKey; i++) releases.push(admitted(yield* one.admit(key, caps)))
          yield* Effect.all(releases)
          // Still held just after: the process had it all in use since its last heartbeat.
          assert.deepStrictEqual(yield* two.admit(key, caps), { _tag: "Refused", scope: "key" })
          yield* whenTimePasses(
            "the idle share taken by the other process",
            Effect.map(two.admit(key, caps), (admission) => admission._tag === "Admitted")
          )
        }).pipe(Effect.scoped)
      )

      it.effect("a dead process's places come back when its lease ends, not before", () =>
        Effect.gen(function* () {
          // A process whose heartbeats stopped, as a killed one's do: its leases are not renewed.
          const dead = yield* startProcess({ lease: timing.lease, heartbeat: Duration.hours(1) })
          const survivor = yield* startProcess()
          const { key } = owners()
          for (let i = 0; i < caps.perKey; i++) admitted(yield* dead.admit(key, caps))
          assert.deepStrictEqual(yield* survivor.admit(key, caps), { _tag: "Refused", scope: "key" })
          if (clock.runs === "test clock") {
            yield* TestClock.adjust(Duration.subtract(timing.lease, Duration.millis(1)))
            assert.deepStrictEqual(yield* survivor.admit(key, caps), { _tag: "Refused", scope: "key" })
          }
          yield* whenTimePasses(
            "the dead process's places admitted again",
            Effect.map(survivor.admit(key, caps), (admission) => admission._tag === "Admitted")
          )
          for (let i = 1; i < caps.perKey; i++) admitted(yield* survivor.admit(key, caps))
        }).pipe(Effect.scoped)
      )

      it.effect("a key answered at a steady pace in one process costs no grant per request", () =>
        Effect.gen(function* () {
          const { calls, service } = yield* counted
          const one = yield* startProcess().pipe(Effect.provideService(InFlightShareStore, service))
          const { key } = owners()
          for (let round = 0; round < 200; round++) {
            const held = [admitted(yield* one.admit(key, caps)), admitted(yield* one.admit(key, caps))]
            yield* Effect.all(held)
          }
          // One grant for each place the share grew by, then none.
          assert.strictEqual(calls.grants, 2)
        }).pipe(Effect.scoped)
      )

      it.effect("over any admissions and releases at 3 processes, the places in use never pass either cap", () =>
        Effect.gen(function* () {
          const processes = [yield* startProcess(), yield* startProcess(), yield* startProcess()]
          const run = Effect.runPromiseWith(yield* Effect.context<never>())
          const step = fc.record({
            process: fc.integer({ min: 0, max: 2 }),
            key: fc.integer({ min: 0, max: 2 }),
            release: fc.boolean()
          })
          const property = fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) =>
            run(
              Effect.gen(function* () {
                const orgId = randomUUID()
                const keys = [randomUUID(), randomUUID(), randomUUID()]
                const held: Array<{ key: number; release: Effect.Effect<void> }> = []
                for (const { process, key, release } of steps) {
                  const index = held.findIndex((h) => h.key === key)
                  if (release && index >= 0) yield* held.splice(index, 1)[0]!.release
                  else {
                    const admission = yield* processes[process]!.admit({ keyId: keys[key]!, orgId }, caps)
                    if (admission._tag === "Admitted") held.push({ key, release: admission.release })
                  }
                  assert.isAtMost(held.length, caps.perOrganization)
                  for (const k of [0, 1, 2]) assert.isAtMost(held.filter((h) => h.key === k).length, caps.perKey)
                }
                yield* Effect.forEach(held, (h) => h.release)
              })
            )
          )
          yield* Effect.promise(() => fc.assert(property, { numRuns: 20 }))
        }).pipe(Effect.scoped)
      )
    }
  )
