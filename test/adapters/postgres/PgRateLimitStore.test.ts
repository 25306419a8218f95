/**
 * The statement of `PgRateLimitStore` against the arithmetic it twins (`core/domain/RateLimit.ts`):
 * on random policies and schedules, given the same instants, it passes and refuses the same
 * requests and leaves the same TAT, to the bit. And the sweep forgets only limits that are full.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { databaseClock, sweep, takeStatement } from "../../../adapters/postgres/PgRateLimitStore.ts"
import * as RateLimit from "../../../core/domain/RateLimit.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const schedule = fc.record({
  policy: fc.record({
    perSecond: fc.double({ min: 0.01, max: 2_000, noNaN: true }),
    burst: fc.integer({ min: 1, max: 50 })
  }),
  start: fc.double({ min: 1.7e12, max: 1.9e12, noNaN: true }),
  // Fractions of a millisecond, as the database's clock has them.
  gaps: fc.array(fc.double({ min: 0, max: 500, noNaN: true }), { minLength: 1, maxLength: 60 })
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
            for (const gap of gaps) {
              now += gap
              const expected = RateLimit.take(policy, tat, now)
              const [row] = yield* takeStatement(sql, name, policy, sql`${now}::float8`)
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
