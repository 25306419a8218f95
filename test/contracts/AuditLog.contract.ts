/**
 * The contract of the `AuditLog` port, one suite run against every implementation (the in-memory
 * twin, PostgreSQL): `describeAuditLog(name, layer, storedKeys)`, one line per log. Entries carry
 * only keys from `storedKeys` (a key's usage is counted against stored keys, which are not this
 * port's, so each log says how it gets two). Each generated case
 * records entries of a fresh organization, later than any recorded before, so that the log's
 * earlier contents never change the answer.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, type Layer } from "effect"
import fc from "fast-check"
import { type AuditEntry, AuditLog } from "../../core/access/ports/AuditLog.ts"
import type { ApiKeyId, OrgId } from "../../core/shared/domain/Ids.ts"
import { describeSearch } from "./AuditLog.search.ts"

export const forAll = <T, R>(arbitrary: fc.Arbitrary<T>, body: (value: T) => Effect.Effect<void, unknown, R>) =>
  Effect.gen(function* () {
    const run = Effect.runPromiseWith(yield* Effect.context<R>())
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(arbitrary, (value) => run(body(value))),
        { numRuns: 20 }
      )
    )
  })

// Each case starts a minute after the previous one's latest entry; the log's partitions cover
// the coming months, so these instants, near now, always have one.
let cursor = DateTime.toEpochMillis(DateTime.nowUnsafe())
export const nextCase = () => {
  cursor += 60_000
  return cursor
}

const entryPlan = fc.record({
  second: fc.boolean(),
  offsetMs: fc.integer({ min: 0, max: 3 }),
  status: fc.constantFrom(200, 400, 401, 404, 429, 500),
  query: fc.string({ maxLength: 20 }),
  clientAddress: fc.option(fc.constantFrom("203.0.113.7", "2001:db8::1"), { nil: null })
})

const entriesOf = (plans: ReadonlyArray<typeof entryPlan extends fc.Arbitrary<infer A> ? A : never>) => {
  const start = nextCase()
  const orgs = [randomUUID() as OrgId, randomUUID() as OrgId] as const
  const entries = plans.map(
    (plan, index): AuditEntry => ({
      at: DateTime.makeUnsafe(start + plan.offsetMs),
      requestId: `req_${randomUUID()}_${index}`,
      keyId: null,
      orgId: orgs[plan.second ? 1 : 0],
      method: "GET",
      path: "/v1/receivables",
      query: plan.query,
      status: plan.status,
      durationMs: 1.5 + index,
      clientAddress: plan.clientAddress
    })
  )
  return { orgs, entries }
}

/** Newest first; of entries at the same instant, the later recorded first. */
const newestFirst = (entries: ReadonlyArray<AuditEntry>) =>
  entries
    .map((entry, order) => ({ entry, order }))
    .sort((a, b) => DateTime.toEpochMillis(b.entry.at) - DateTime.toEpochMillis(a.entry.at) || b.order - a.order)
    .map(({ entry }) => entry)

export const plain = (entry: AuditEntry) => ({ ...entry, at: DateTime.formatIso(entry.at) })

export const describeAuditLog = <E, R>(
  name: string,
  logLayer: Layer.Layer<AuditLog | R, E>,
  storedKeys: Effect.Effect<readonly [ApiKeyId, ApiKeyId], never, R>
) =>
  layer(logLayer, { excludeTestServices: true, timeout: 120_000 })(`AuditLog contract (${name})`, (it) => {
    describeSearch(it, storedKeys)

    it.effect("an organization's recent entries are its newest, newest first, as recorded, up to the limit", () =>
      forAll(fc.tuple(fc.array(entryPlan, { maxLength: 8 }), fc.integer({ min: 0, max: 10 })), ([plans, limit]) =>
        Effect.gen(function* () {
          const audit = yield* AuditLog
          const { orgs, entries } = entriesOf(plans)
          for (const entry of entries) yield* audit.record(entry)
          for (const org of orgs) {
            const expected = newestFirst(entries.filter((e) => e.orgId === org)).slice(0, limit)
            assert.deepStrictEqual((yield* audit.recent({ orgId: org, limit })).map(plain), expected.map(plain))
            // A UUID is one value however it is cased.
            const shouted = yield* audit.recent({ orgId: org.toUpperCase() as OrgId, limit })
            assert.deepStrictEqual(shouted.map(plain), expected.map(plain))
          }
        })
      )
    )

    it.effect("without an organization, the newest entries of all, entries without one too", () =>
      forAll(fc.array(fc.tuple(entryPlan, fc.boolean()), { minLength: 1, maxLength: 8 }), (plans) =>
        Effect.gen(function* () {
          const audit = yield* AuditLog
          const { entries } = entriesOf(plans.map(([plan]) => plan))
          const recorded = entries.map((entry, index) => (plans[index]![1] ? { ...entry, orgId: null } : entry))
          // Concurrent requests: their entries may be stored together, and all are kept.
          yield* Effect.forEach(recorded, (entry) => audit.record(entry), { concurrency: "unbounded", discard: true })
          const expected = [...recorded].sort((a, b) => DateTime.toEpochMillis(b.at) - DateTime.toEpochMillis(a.at))
          const answered = yield* audit.recent({ limit: recorded.length })
          assert.sameDeepMembers(answered.map(plain), recorded.map(plain))
          assert.deepStrictEqual(
            answered.map((e) => DateTime.toEpochMillis(e.at)),
            expected.map((e) => DateTime.toEpochMillis(e.at))
          )
          assert.strictEqual(yield* audit.pending, 0)
        })
      )
    )
  })
