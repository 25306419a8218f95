/**
 * `RateLimitStore` over PostgreSQL: `rate_limits` (migration 0016), one statement per request (a
 * key's limit and its organization's together, and whether the key is revoked by now), so
 * that every process on the database counts against the same limits. The statement is the twin of
 * `take` in `core/shared/domain/RateLimit.ts`: it reads the clock of the database (one clock for every
 * process), moves the TAT on when the request passes and returns it with the decision; the
 * headers' figures are computed from those by the domain. One statement and no session state, so
 * it runs unchanged through a transaction-mode pooler. Full limits are swept every minute.
 */
import { Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import {
  type KeyRef,
  type KeyStep,
  type NamedLimit,
  RateLimitStore,
  RateLimitStoreUnavailable
} from "../../core/access/ports/RateLimitStore.ts"
import * as RateLimit from "../../core/shared/domain/RateLimit.ts"
import { innermostMessage } from "./Database.ts"

/** The database's clock in epoch milliseconds; `clock_timestamp()`, not the transaction's start. */
export const databaseClock = (sql: SqlClient.SqlClient) => sql`(extract(epoch FROM clock_timestamp()) * 1000)::float8`

/**
 * The upsert of one request against `name`, for a `WITH` list that names `arrival` (its `now_ms`):
 * its rows come from `source` (`arrival`, or `arrival` joined with what decides whether the limit
 * is asked at all). Every right-hand side of the update reads the row as it was, so `admitted` and
 * the new TAT agree; the expressions are those of `take` in the domain, in its order.
 */
const upsert = (
  sql: SqlClient.SqlClient,
  name: string,
  policy: RateLimit.RateLimitPolicy,
  source: ReturnType<typeof databaseClock>
) => {
  const interval = RateLimit.intervalMillis(policy)
  const ceiling = RateLimit.ceilingMillis(policy)
  return sql`
    INSERT INTO rate_limits AS r (name, tat_ms, admitted)
    SELECT ${name}, now_ms + ${interval}::float8, 0 + ${interval}::float8 <= ${ceiling}::float8 FROM ${source}
    ON CONFLICT (name) DO UPDATE SET
      admitted = greatest(r.tat_ms - (SELECT now_ms FROM arrival), 0) + ${interval}::float8 <= ${ceiling}::float8,
      tat_ms = CASE
        WHEN greatest(r.tat_ms - (SELECT now_ms FROM arrival), 0) + ${interval}::float8 <= ${ceiling}::float8
        THEN greatest(r.tat_ms, (SELECT now_ms FROM arrival)) + ${interval}::float8
        ELSE greatest(r.tat_ms, (SELECT now_ms FROM arrival))
      END
    RETURNING tat_ms, admitted`
}

/**
 * One request against `name`, at `now` (a fragment giving epoch milliseconds: the database's clock,
 * or a fixed time in the tests that compare this statement with the domain).
 */
export const takeStatement = (
  sql: SqlClient.SqlClient,
  name: string,
  policy: RateLimit.RateLimitPolicy,
  now: ReturnType<typeof databaseClock>
) =>
  sql<{ tat_ms: number; admitted: boolean; now_ms: number }>`
    WITH arrival AS (SELECT ${now} AS now_ms), taken AS (${upsert(sql, name, policy, sql`arrival`)})
    SELECT tat_ms, admitted, (SELECT now_ms FROM arrival) AS now_ms FROM taken`

/**
 * A key's request against two limits in one statement, at one instant: nothing is taken when the
 * key is found revoked (its row, by id and organization, in the statement's snapshot: a revocation
 * committed before the request arrived is seen), and the second is asked only if the first admitted.
 * The key's row is one primary-key probe; see `bench/scale/limiter.ts` for its cost.
 */
export const takeForKeyStatement = (
  sql: SqlClient.SqlClient,
  key: KeyRef,
  first: NamedLimit,
  second: NamedLimit,
  now: ReturnType<typeof databaseClock>
) =>
  sql<{
    revoked: boolean
    tat_ms: number | null
    admitted: boolean | null
    second_tat_ms: number | null
    second_admitted: boolean | null
    now_ms: number
  }>`
    WITH arrival AS (
        SELECT ${now} AS now_ms, EXISTS (
          SELECT 1 FROM api_keys
          WHERE id = ${key.keyId}::uuid AND org_id = ${key.orgId}::uuid AND revoked_at IS NOT NULL
        ) AS revoked
      ),
      first AS (${upsert(sql, first.name, first.policy, sql`arrival WHERE NOT arrival.revoked`)}),
      second AS (${upsert(sql, second.name, second.policy, sql`arrival, first WHERE first.admitted`)})
    SELECT arrival.revoked, first.tat_ms, first.admitted, second.tat_ms AS second_tat_ms,
      second.admitted AS second_admitted, arrival.now_ms
    FROM arrival LEFT JOIN first ON true LEFT JOIN second ON true`

/** Removes the limits that are full again: a missing row is a full limit, so nothing changes. */
export const sweep = (sql: SqlClient.SqlClient) => sql`DELETE FROM rate_limits WHERE tat_ms < ${databaseClock(sql)}`

const unavailable = (error: unknown) => new RateLimitStoreUnavailable({ message: innermostMessage(error) })

export const layer = Layer.effect(
  RateLimitStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* Effect.forkScoped(
      sweep(sql).pipe(
        Effect.catchCause((cause) => Effect.logWarning("full rate limits could not be swept", cause)),
        Effect.repeat(Schedule.spaced("1 minute"))
      )
    )
    return RateLimitStore.of({
      take: (name, policy) =>
        takeStatement(sql, name, policy, databaseClock(sql)).pipe(
          Effect.mapError(unavailable),
          Effect.map(([row]) => RateLimit.standing(policy, row!.admitted, row!.tat_ms, row!.now_ms)),
          Effect.withSpan("PgRateLimitStore.take")
        ),
      takeForKey: (key, first, second) =>
        takeForKeyStatement(sql, key, first, second, databaseClock(sql)).pipe(
          Effect.mapError(unavailable),
          Effect.map(([row]): KeyStep => {
            if (row!.revoked || row!.admitted === null || row!.tat_ms === null) return { _tag: "Revoked" }
            return {
              _tag: "Taken",
              first: RateLimit.standing(first.policy, row!.admitted, row!.tat_ms, row!.now_ms),
              second:
                row!.second_admitted === null || row!.second_tat_ms === null
                  ? undefined
                  : RateLimit.standing(second.policy, row!.second_admitted, row!.second_tat_ms, row!.now_ms)
            }
          }),
          Effect.withSpan("PgRateLimitStore.takeForKey")
        )
    })
  })
)
