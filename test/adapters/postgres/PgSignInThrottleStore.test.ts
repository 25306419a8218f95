/**
 * What the PostgreSQL throttle store adds to the contract: a flood from one address is refused
 * before it writes, so the table holds no more of its rows than the attempts let through; and the
 * sweep deletes the attempts whose window has ended, and only those.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgSignInThrottleStore from "../../../adapters/postgres/PgSignInThrottleStore.ts"
import { addressThrottle } from "../../../core/accounts/domain/Dashboard.ts"
import { layerStandIn } from "../../../core/accounts/memory/SignInThrottleStore.ts"
import { makeThrottle } from "../../../core/accounts/services/SignInThrottle.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const rowsLike = (pattern: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ count: string }>`SELECT count(*) AS count FROM sign_in_attempts WHERE key LIKE ${pattern}`,
      ([row]) => Number(row!.count)
    )
  )

layer(Layer.provideMerge(Layer.merge(PgSignInThrottleStore.layer, layerStandIn()), TestDatabase.layer), {
  timeout: 120_000
})("PgSignInThrottleStore", (it) => {
  it.effect(
    "200 wrong passwords on made-up accounts from one address write the rows of its 20 let through, no more",
    () =>
      Effect.gen(function* () {
        const throttle = yield* makeThrottle("password")
        const address = "203.0.113.77"
        const answers = yield* Effect.forEach(Array.from({ length: 200 }), (_, i) =>
          Effect.map(throttle.admit(`flood-${i}@example.com`, address), (admission) => admission._tag)
        )
        assert.strictEqual(answers.filter((tag) => tag === "Admitted").length, addressThrottle.failures)
        // Each attempt let through is written against the address twice (every attempt, failures),
        // its account, and the pair.
        assert.strictEqual(yield* rowsLike(`%${address}`), 3 * addressThrottle.failures)
        assert.strictEqual(yield* rowsLike("password.account\nflood-%"), addressThrottle.failures)
      })
  )

  it.effect("the sweep deletes the attempts whose window has ended and keeps the others", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const now = sql`extract(epoch FROM clock_timestamp()) * 1000`
      yield* sql`INSERT INTO sign_in_attempts (key, at_ms, expires_ms) VALUES
          ('sweep\nended', ${now} - 900001, ${now} - 1), ('sweep\nlive', ${now} - 1000, ${now} + 899000)`
      yield* PgSignInThrottleStore.sweep(sql)
      assert.strictEqual(yield* rowsLike("sweep\nended"), 0)
      assert.strictEqual(yield* rowsLike("sweep\nlive"), 1)
    })
  )
})
