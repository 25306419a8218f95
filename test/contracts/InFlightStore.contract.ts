/**
 * The contract of the `InFlightStore` port, one suite run against every implementation (the
 * in-memory twin, PostgreSQL): `describeInFlightStore(name, layer)`. Each case uses owners of its
 * own (UUIDs, as keys and organizations are).
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import fc from "fast-check"
import { type InFlightAdmission, InFlightStore } from "../../core/access/ports/InFlightStore.ts"

const released = (admission: InFlightAdmission) =>
  admission._tag === "Admitted" ? admission.release : Effect.die("refused")

export const describeInFlightStore = (name: string, storage: Layer.Layer<InFlightStore, unknown>) =>
  layer(storage, { timeout: 60_000 })(`InFlightStore contract (${name})`, (it) => {
    it.effect("admits a key up to its cap, then refuses naming the key; a release frees a place", () =>
      Effect.gen(function* () {
        const store = yield* InFlightStore
        const owner = { keyId: randomUUID(), orgId: randomUUID() }
        const caps = { perKey: 2, perOrganization: 5 }
        const first = yield* store.admit(owner, caps)
        yield* store.admit(owner, caps)
        assert.deepStrictEqual(yield* store.admit(owner, caps), { _tag: "Refused", scope: "key" })
        yield* released(first)
        assert.strictEqual((yield* store.admit(owner, caps))._tag, "Admitted")
      })
    )

    it.effect("an organization's keys together are capped, and refused naming the organization", () =>
      Effect.gen(function* () {
        const store = yield* InFlightStore
        const orgId = randomUUID()
        const caps = { perKey: 2, perOrganization: 3 }
        const [one, two] = [randomUUID(), randomUUID()]
        yield* store.admit({ keyId: one, orgId }, caps)
        yield* store.admit({ keyId: one, orgId }, caps)
        const third = yield* store.admit({ keyId: two, orgId }, caps)
        assert.deepStrictEqual(yield* store.admit({ keyId: two, orgId }, caps), {
          _tag: "Refused",
          scope: "organization"
        })
        // Another organization's keys are not held back.
        assert.strictEqual((yield* store.admit({ keyId: randomUUID(), orgId: randomUUID() }, caps))._tag, "Admitted")
        yield* released(third)
        assert.strictEqual((yield* store.admit({ keyId: two, orgId }, caps))._tag, "Admitted")
      })
    )

    it.effect("admissions at once never pass either cap", () =>
      Effect.gen(function* () {
        const store = yield* InFlightStore
        const run = Effect.runPromiseWith(yield* Effect.context<InFlightStore>())
        const property = fc.asyncProperty(
          fc.record({ perKey: fc.integer({ min: 1, max: 4 }), perOrganization: fc.integer({ min: 1, max: 6 }) }),
          fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 20 }),
          (caps, arrivals) =>
            run(
              Effect.gen(function* () {
                const orgId = randomUUID()
                const keys = [randomUUID(), randomUUID(), randomUUID(), randomUUID()]
                const admissions = yield* Effect.all(
                  arrivals.map((key) =>
                    Effect.map(store.admit({ keyId: keys[key]!, orgId }, caps), (a) => [key, a] as const)
                  ),
                  { concurrency: "unbounded" }
                )
                const admitted = admissions.filter(([, a]) => a._tag === "Admitted").map(([key]) => key)
                const perKey = keys.map((_, key) => admitted.filter((k) => k === key).length)
                for (const n of perKey) assert.isAtMost(n, caps.perKey)
                assert.isAtMost(admitted.length, caps.perOrganization)
                // Nothing is refused while there was room for it: in any order, the caps fill.
                const expected = Math.min(
                  caps.perOrganization,
                  keys.reduce((sum, _, key) => sum + Math.min(caps.perKey, arrivals.filter((k) => k === key).length), 0)
                )
                assert.strictEqual(admitted.length, expected)
                yield* Effect.forEach(admissions, ([, a]) => (a._tag === "Admitted" ? a.release : Effect.void))
              })
            )
        )
        yield* Effect.promise(() => fc.assert(property, { numRuns: 25 }))
      })
    )
  })
