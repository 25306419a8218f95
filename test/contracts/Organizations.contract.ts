/**
 * The contract of the `Organizations` port, one suite run against every implementation (the
 * in-memory twin, PostgreSQL): `describeOrganizations(name, layer)`, one line per store. The store
 * may hold organizations of earlier tests, so each check looks at the ones it created.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Exit, type Layer, Option } from "effect"
import fc from "fast-check"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import { type Organization, Organizations } from "../../core/shared/ports/Organizations.ts"
import { arbitraryRateLimit } from "../support/arbitraries.ts"

/** Runs `body` for generated values against the store under test; fails with the counterexample. */
const forAll = <T>(arbitrary: fc.Arbitrary<T>, body: (value: T) => Effect.Effect<void, never, Organizations>) =>
  Effect.gen(function* () {
    const run = Effect.runPromiseWith(yield* Effect.context<Organizations>())
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(arbitrary, (value) => run(body(value))),
        { numRuns: 20 }
      )
    )
  })

// Names that sort alike under every collation, with repeats so that ids break ties.
const names = fc.array(fc.constantFrom("Acme Factoring", "Beta Capital", "Gamma"), { minLength: 1, maxLength: 5 })
const byNameThenId = (a: Organization, b: Organization) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

export const describeOrganizations = <E>(name: string, storeLayer: Layer.Layer<Organizations, E>) =>
  layer(storeLayer, { excludeTestServices: true, timeout: 120_000 })(`Organizations contract (${name})`, (it) => {
    it.effect("a created organization has a fresh id, its name and the time of creation, and is found by id", () =>
      forAll(names, (created) =>
        Effect.gen(function* () {
          const organizations = yield* Organizations
          const before = yield* DateTime.now
          const stored = yield* Effect.forEach(created, (name) => organizations.create(name))
          assert.strictEqual(new Set(stored.map((o) => o.id)).size, stored.length)
          for (const [index, organization] of stored.entries()) {
            assert.strictEqual(organization.name, created[index])
            assert.match(organization.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
            // Within a second of the call: the store's clock and ours may differ by a little.
            assert.isAtMost(
              Math.abs(DateTime.toEpochMillis(organization.createdAt) - DateTime.toEpochMillis(before)),
              1_000
            )
            assert.deepStrictEqual(yield* organizations.find(organization.id), Option.some(organization))
            const shouted = organization.id.toUpperCase() as OrgId
            assert.deepStrictEqual(yield* organizations.find(shouted), Option.some(organization))
          }
        })
      )
    )

    it.effect("an organization starts with no rate limit of its own; one set is found until replaced or cleared", () =>
      forAll(fc.array(fc.option(arbitraryRateLimit, { nil: null }), { minLength: 1, maxLength: 4 }), (limits) =>
        Effect.gen(function* () {
          const organizations = yield* Organizations
          const created = yield* organizations.create("Limited")
          const bystander = yield* organizations.create("Bystander")
          assert.strictEqual(created.rateLimit, null)
          for (const limit of limits) {
            const changed = yield* organizations.setRateLimit(created.id, limit)
            assert.deepStrictEqual(changed, Option.some({ ...created, rateLimit: limit }))
            assert.deepStrictEqual(yield* organizations.find(created.id), changed)
          }
          assert.deepStrictEqual(yield* organizations.find(bystander.id), Option.some(bystander))
          assert.isTrue(Option.isNone(yield* organizations.setRateLimit(randomUUID() as OrgId, null)))
        })
      )
    )

    it.effect("the list holds every organization, by name then id", () =>
      forAll(names, (created) =>
        Effect.gen(function* () {
          const organizations = yield* Organizations
          const stored = yield* Effect.forEach(created, (name) => organizations.create(name))
          const listed = yield* organizations.list
          assert.includeDeepMembers([...listed], stored)
          assert.deepStrictEqual(listed, [...listed].sort(byNameThenId))
        })
      )
    )

    it.effect("an id that names no organization finds nothing", () =>
      forAll(fc.uuid(), (id) =>
        Effect.gen(function* () {
          assert.isTrue(Option.isNone(yield* (yield* Organizations).find(id as OrgId)))
        })
      )
    )

    it.effect("an empty name is refused as a defect, and nothing is stored", () =>
      Effect.gen(function* () {
        const organizations = yield* Organizations
        const before = (yield* organizations.list).length
        assert.isTrue(Exit.hasDies(yield* Effect.exit(organizations.create(""))))
        assert.strictEqual((yield* organizations.list).length, before)
        assert.isTrue(Option.isNone(yield* organizations.find(randomUUID() as OrgId)))
      })
    )
  })
