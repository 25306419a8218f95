/**
 * `RateLimitStore` over PostgreSQL: `rate_limits` (migration 0016), so that every process on the
 * database counts against the same limits. A key's requests are taken a batch at a time into this
 * process's local allowances (`core/access/domain/LocalAllowance.ts`): one statement per batch (a
 * key's limit and its organization's together, and whether the key is revoked by now), at least
 * once a second per key in use; other limits (dashboard sessions') one statement per request. The
 * statement is the twin of `take` in `core/shared/domain/RateLimit.ts`, a batch being a request of
 * that cost: it reads the clock of the database (one clock for every process), moves the TAT on
 * when the batch passes and returns it with the decision; the headers' figures are computed from
 * those by the domain. One statement and no session state, so it runs unchanged through a
 * transaction-mode pooler. Full limits are swept every minute.
 */
import { Clock, Deferred, Effect, Exit, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import * as LocalAllowance from "../../core/access/domain/LocalAllowance.ts"
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
 * The upsert of `cost` requests at once against `name` (all or nothing, as `take` in the domain),
 * for a `WITH` list that names `arrival` (its `now_ms`): its rows come from `source` (`arrival`, or
 * `arrival` joined with what decides whether the limit is asked at all). Every right-hand side of
 * the update reads the row as it was, so `admitted` and the new TAT agree; the expressions are
 * those of `take` in the domain, in its order.
 */
const upsert = (
  sql: SqlClient.SqlClient,
  name: string,
  policy: RateLimit.RateLimitPolicy,
  cost: number,
  source: ReturnType<typeof databaseClock>
) => {
  const advance = RateLimit.intervalMillis(policy) * cost
  const ceiling = RateLimit.ceilingMillis(policy)
  // A limit never seen has nothing spent: the batch passes unless it is larger than the burst.
  return sql`
    INSERT INTO rate_limits AS r (name, tat_ms, admitted)
    SELECT ${name},
      CASE WHEN 0 + ${advance}::float8 <= ${ceiling}::float8 THEN now_ms + ${advance}::float8 ELSE now_ms END,
      0 + ${advance}::float8 <= ${ceiling}::float8
    FROM ${source}
    ON CONFLICT (name) DO UPDATE SET
      admitted = greatest(r.tat_ms - (SELECT now_ms FROM arrival), 0) + ${advance}::float8 <= ${ceiling}::float8,
      tat_ms = CASE
        WHEN greatest(r.tat_ms - (SELECT now_ms FROM arrival), 0) + ${advance}::float8 <= ${ceiling}::float8
        THEN greatest(r.tat_ms, (SELECT now_ms FROM arrival)) + ${advance}::float8
        ELSE greatest(r.tat_ms, (SELECT now_ms FROM arrival))
      END
    RETURNING tat_ms, admitted`
}

/**
 * `cost` requests (one by default) against `name`, at `now` (a fragment giving epoch milliseconds:
 * the database's clock, or a fixed time in the tests that compare this statement with the domain).
 */
export const takeStatement = (
  sql: SqlClient.SqlClient,
  name: string,
  policy: RateLimit.RateLimitPolicy,
  now: ReturnType<typeof databaseClock>,
  cost = 1
) =>
  sql<{ tat_ms: number; admitted: boolean; now_ms: number }>`
    WITH arrival AS (SELECT ${now} AS now_ms), taken AS (${upsert(sql, name, policy, cost, sql`arrival`)})
    SELECT tat_ms, admitted, (SELECT now_ms FROM arrival) AS now_ms FROM taken`

/** A limit of a key's step and the tokens asked of it: 0 asks nothing and only reads it. */
export interface Asked extends NamedLimit {
  readonly cost: number
}

/**
 * A key's batches against two limits in one statement, at one instant: nothing is taken when the
 * key is found revoked (its row, by id and organization, in the statement's snapshot: a revocation
 * committed before the statement arrived is seen), and the second is asked only if the first
 * admitted or `holdsFirst` (the process still holds a token of the first). The key's row is one
 * primary-key probe; see `bench/scale/limiter.ts` for its cost.
 */
export const takeForKeyStatement = (
  sql: SqlClient.SqlClient,
  key: KeyRef,
  first: Asked,
  second: Asked,
  now: ReturnType<typeof databaseClock>,
  holdsFirst = false
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
      first AS (${upsert(sql, first.name, first.policy, first.cost, sql`arrival WHERE NOT arrival.revoked`)}),
      second AS (${upsert(
        sql,
        second.name,
        second.policy,
        second.cost,
        sql`arrival, first WHERE first.admitted OR ${holdsFirst}::boolean`
      )})
    SELECT arrival.revoked, first.tat_ms, first.admitted, second.tat_ms AS second_tat_ms,
      second.admitted AS second_admitted, arrival.now_ms
    FROM arrival LEFT JOIN first ON true LEFT JOIN second ON true`

/** Removes the limits that are full again: a missing row is a full limit, so nothing changes. */
export const sweep = (sql: SqlClient.SqlClient) => sql`DELETE FROM rate_limits WHERE tat_ms < ${databaseClock(sql)}`

const unavailable = (error: unknown) => new RateLimitStoreUnavailable({ message: innermostMessage(error) })

/** Allowances held before the lapsed ones are forgotten (their tokens with them: never more admitted). */
const forgetAbove = 100_000

interface StatementAnswer {
  readonly revoked: boolean
  readonly first: LocalAllowance.Answer | undefined
  readonly second: LocalAllowance.Answer | undefined
}

/**
 * A key's step through this process's local allowances (`core/access/domain/LocalAllowance.ts`):
 * spent here while they hold, refused here while the shared bucket had nothing to give, and
 * refilled by one statement (which also checks the key) otherwise. Requests of one key that find a
 * refill under way wait for it rather than send their own.
 */
const allowances = (sql: SqlClient.SqlClient) => {
  const held = new Map<string, LocalAllowance.Allowance>()
  const refilling = new Map<string, Deferred.Deferred<void, RateLimitStoreUnavailable>>()

  const statement = (key: KeyRef, first: Asked, second: Asked, holdsFirst: boolean, sentAt: number) =>
    takeForKeyStatement(sql, key, first, second, databaseClock(sql), holdsFirst).pipe(
      Effect.mapError(unavailable),
      Effect.map(([row]): StatementAnswer => {
        if (row!.revoked || row!.admitted === null || row!.tat_ms === null) {
          held.delete(first.name)
          return { revoked: true, first: undefined, second: undefined }
        }
        const answer = (cost: number, admitted: boolean, tatMillis: number): LocalAllowance.Answer => ({
          cost,
          admitted,
          tatMillis,
          storeMillis: row!.now_ms
        })
        const onFirst = answer(first.cost, row!.admitted, row!.tat_ms)
        held.set(first.name, LocalAllowance.refilled(held.get(first.name), first.policy, onFirst, sentAt))
        if (row!.second_admitted === null || row!.second_tat_ms === null)
          return { revoked: false, first: onFirst, second: undefined }
        const onSecond = answer(second.cost, row!.second_admitted, row!.second_tat_ms)
        held.set(second.name, LocalAllowance.refilled(held.get(second.name), second.policy, onSecond, sentAt))
        return { revoked: false, first: onFirst, second: onSecond }
      }),
      Effect.withSpan("PgRateLimitStore.refill")
    )

  /** The step decided here, from the allowances as they stand (after a refill, with no other). */
  const decide = (first: NamedLimit, second: NamedLimit, now: number): KeyStep => {
    const own = held.get(first.name)
    if (own === undefined || own.tokens === 0) {
      return { _tag: "Taken", first: LocalAllowance.refuse(own!, now), second: undefined }
    }
    const [decision, left] = LocalAllowance.spend(own, now)
    held.set(first.name, left)
    const organization = held.get(second.name)!
    if (organization.tokens === 0) {
      return { _tag: "Taken", first: decision, second: LocalAllowance.refuse(organization, now) }
    }
    const [then, rest] = LocalAllowance.spend(organization, now)
    held.set(second.name, rest)
    return { _tag: "Taken", first: decision, second: then }
  }

  const asked = (limit: NamedLimit, plan: LocalAllowance.Plan): Asked => ({
    ...limit,
    cost: plan._tag === "Ask" ? plan.cost : 0
  })

  const refill = (key: KeyRef, first: NamedLimit, second: NamedLimit, now: number) =>
    Effect.gen(function* () {
      const [own, organization] = [held.get(first.name), held.get(second.name)]
      const holds = (limit: NamedLimit) => (held.get(limit.name)?.tokens ?? 0) > 0
      const answered = yield* statement(
        key,
        asked(first, LocalAllowance.plan(own, first.policy, now)),
        asked(second, LocalAllowance.plan(organization, second.policy, now)),
        holds(first),
        now
      )
      if (answered.revoked) return { _tag: "Revoked" } as const
      // A batch refused where a single request would pass (others took from the bucket since it
      // was last seen): one request's worth at once, as a process without allowances would ask.
      const short = (limit: NamedLimit, answer: LocalAllowance.Answer | undefined) =>
        answer !== undefined && LocalAllowance.oneLeft(limit.policy, answer) && !holds(limit)
      const [firstShort, secondShort] = [short(first, answered.first), short(second, answered.second)]
      if (firstShort || secondShort) {
        const single = (limit: NamedLimit): Asked => ({ ...limit, cost: holds(limit) ? 0 : 1 })
        const again = yield* statement(key, single(first), single(second), holds(first), now)
        if (again.revoked) return { _tag: "Revoked" } as const
      }
      return decide(first, second, now)
    })

  const takeForKey = (
    key: KeyRef,
    first: NamedLimit,
    second: NamedLimit
  ): Effect.Effect<KeyStep, RateLimitStoreUnavailable> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const pending = refilling.get(first.name)
      if (pending !== undefined) return Effect.andThen(Deferred.await(pending), takeForKey(key, first, second))
      const own = held.get(first.name)
      const forKey = LocalAllowance.plan(own, first.policy, now)
      if (forKey._tag === "Refuse") {
        return Effect.succeed<KeyStep>({ _tag: "Taken", first: LocalAllowance.refuse(own!, now), second: undefined })
      }
      if (forKey._tag === "Spend" && LocalAllowance.plan(held.get(second.name), second.policy, now)._tag !== "Ask") {
        return Effect.succeed(decide(first, second, now))
      }
      // Another key of the organization refilling: its statement may bring the organization's
      // batch, and two asked at once would hold more than the stated bound (a tenth of the burst).
      const organizationPending = refilling.get(second.name)
      if (organizationPending !== undefined) {
        return Effect.andThen(Deferred.await(organizationPending), takeForKey(key, first, second))
      }
      if (held.size >= forgetAbove) {
        for (const [name, allowance] of held) {
          if (allowance.lapsesAt <= now && !refilling.has(name)) held.delete(name)
        }
      }
      // Marked and unmarked in one piece: a refill interrupted between would leave its waiters
      // waiting for good.
      return Effect.uninterruptibleMask((restore) => {
        const done = Deferred.makeUnsafe<void, RateLimitStoreUnavailable>()
        refilling.set(first.name, done)
        refilling.set(second.name, done)
        return restore(refill(key, first, second, now)).pipe(
          Effect.onExit((exit) =>
            Effect.sync(() => {
              refilling.delete(first.name)
              refilling.delete(second.name)
              // An unreachable store fails the waiters at once, each to its caller's fallback, rather
              // than letting them try it again one after another; otherwise they decide again.
              const failed = Exit.findErrorOption(exit)
              Deferred.doneUnsafe(done, failed._tag === "Some" ? Exit.fail(failed.value) : Exit.void)
            })
          )
        )
      })
    })

  return takeForKey
}

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
    const takeForKey = allowances(sql)
    return RateLimitStore.of({
      take: (name, policy) =>
        takeStatement(sql, name, policy, databaseClock(sql)).pipe(
          Effect.mapError(unavailable),
          Effect.map(([row]) => RateLimit.standing(policy, row!.admitted, row!.tat_ms, row!.now_ms)),
          Effect.withSpan("PgRateLimitStore.take")
        ),
      takeForKey: (key, first, second) =>
        takeForKey(key, first, second).pipe(Effect.withSpan("PgRateLimitStore.takeForKey"))
    })
  })
)
