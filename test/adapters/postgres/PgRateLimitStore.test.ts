/**
 * The statement of `PgRateLimitStore` against the arithmetic it twins (`core/shared/domain/RateLimit.ts`):
 * on random policies and schedules, given the same instants, it passes and refuses the same
 * requests (and batches of them) and leaves the same TAT, to the bit. A key's step finds a key revoked by then and takes
 * nothing. And the sweep forgets only limits that are full.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import * as PgRateLimitStore from "../../../adapters/postgres/PgRateLimitStore.ts"
import { databaseClock, sweep, takeStatement } from "../../../adapters/postgres/PgRateLimitStore.ts"
import { RateLimitStore } from "../../../core/access/ports/RateLimitStore.ts"
import * as RateLimit from "../../../core/shared/domain/RateLimit.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const schedule = fc.record({
  policy: fc.record({
    perSecond: fc.double({ min: 0.01, max: 2_000, noNaN: true }),
    burst: fc.integer({ min: 1, max: 50 })
  }),
  start: fc.double({ min: 1.7e12, max: 1.9e12, noNaN: true }),
  // Fractions of a millisecond, as the database's clock has them; mostly single requests, some
  // batches of a process's local allowance (all or nothing), some that take nothing.
  gaps: fc.array(
    fc.record({
      gap: fc.double({ min: 0, max: 500, noNaN: true }),
      cost: fc.oneof(fc.constant(1), fc.integer({ min: 0, max: 12 }))
    }),
    { minLength: 1, maxLength: 60 }
  )
})

layer(TestDatabase.layer, { timeout: 120_000 })("PgRateLimitStore", (it) => {
  it.effect("decides as the domain's GCRA on any schedule, leaving the same TAT", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const run = Effect.runPromiseWith(yield* Effect.context<SqlClient.SqlClient>())
      const property = fc.asyncProperty(schedule, ({ policy, start, gaps }) =>
        run(
          Effect.gen(function* () {
            const name = `key:${randomUUID()}`
            let tat: number | undefined
            let now = start
            for (const { gap, cost } of gaps) {
              now += gap
              const expected = RateLimit.take(policy, tat, now, cost)
              const [row] = yield* takeStatement(sql, name, policy, sql`${now}::float8`, cost)
              assert.deepStrictEqual(
                [row!.admitted, row!.tat_ms, row!.now_ms],
                [expected.allowed, expected.tatMillis, now]
              )
              tat = expected.tatMillis
            }
          }).pipe(Effect.orDie)
        )
      )
      yield* Effect.promise(() => fc.assert(property, { numRuns: 60 }))
    })
  )

  it.effect("a key's step takes its limits while the key is live, and nothing once it is revoked", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const store = yield* Effect.provide(Effect.service(RateLimitStore), PgRateLimitStore.layer)
      const [org] = yield* sql<{
        id: string
      }>`INSERT INTO organizations (name) VALUES ('Revoked meanwhile') RETURNING id`
      const [key] = yield* sql<{ id: string }>`INSERT INTO api_keys (org_id, key_hash, display_start)
        VALUES (${org!.id}, sha256(convert_to(${randomUUID()}, 'UTF8')), 'pr_live_revo') RETURNING id`
      const owner = { keyId: key!.id, orgId: org!.id }
      const limits = [
        { name: owner.keyId, policy: { perSecond: 0.001, burst: 5 } },
        { name: `org:${owner.orgId}`, policy: { perSecond: 0.001, burst: 5 } }
      ] as const
      const taken = yield* store.takeForKey(owner, ...limits)
      assert.strictEqual(taken._tag, "Taken")
      const tats = sql<{ name: string; tat_ms: number }>`
        SELECT name, tat_ms FROM rate_limits WHERE name IN (${limits[0].name}, ${limits[1].name}) ORDER BY name`
      const before = yield* tats
      assert.strictEqual(before.length, 2)

      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${owner.keyId}`
      assert.deepStrictEqual(yield* store.takeForKey(owner, ...limits), { _tag: "Revoked" })
      assert.deepStrictEqual(yield* tats, before, "nothing taken by the revoked key")
      // Another organization's key of the same id is not this one: only the key's own row counts.
      const elsewhere = yield* store.takeForKey({ keyId: owner.keyId, orgId: randomUUID() }, ...limits)
      assert.strictEqual(elsewhere._tag, "Taken")
    }).pipe(Effect.scoped)
  )

  it.effect("the sweep removes the limits that are full again, and only those", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [full, spent] = [`key:${randomUUID()}`, `key:${randomUUID()}`]
      // One request at an instant long past: its TAT has passed, the limit is full.
      yield* takeStatement(sql, full, { perSecond: 1, burst: 5 }, sql`1000::float8`)
      // One on a limit refilling once in 1,000 s: spent for a while yet.
      yield* takeStatement(sql, spent, { perSecond: 0.001, burst: 5 }, databaseClock(sql))
      yield* sweep(sql)
      const left = yield* sql<{ name: string }>`SELECT name FROM rate_limits WHERE name IN (${full}, ${spent})`
      assert.deepStrictEqual(
        left.map((row) => row.name),
        [spent]
      )
    })
  )
})
