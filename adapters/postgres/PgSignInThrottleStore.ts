/**
 * `SignInThrottleStore` over PostgreSQL: `sign_in_attempts` and `sign_in_trusted` (migration 0021),
 * so that every process on the database counts against the same throttles, by the database's
 * clock. Recording an attempt is one call of `record_sign_in_attempt`, settling it one call of
 * `settle_sign_in_attempt`; no session state, so both run unchanged through a transaction-mode
 * pooler. Attempts past their window are swept every minute; until then the counts ignore them.
 */
import { Duration, Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { trustedPerAccount } from "../../core/accounts/memory/SignInThrottleStore.ts"
import {
  type CountedKey,
  SignInThrottleStore,
  SignInThrottleStoreUnavailable
} from "../../core/accounts/ports/SignInThrottleStore.ts"
import { innermostMessage } from "./Database.ts"
import { texts } from "./PgPairRows.ts"
import { databaseClock } from "./PgRateLimitStore.ts"

/** A key's row name: its table and its key, which holds no line break of its own at the front. */
const rowKey = ({ table, key }: { readonly table: string; readonly key: string }) => `${table}\n${key}`

/** Deletes the attempts whose window has ended: they count for nothing already. */
export const sweep = (sql: SqlClient.SqlClient) =>
  sql`DELETE FROM sign_in_attempts WHERE expires_ms < ${databaseClock(sql)}`

const unavailable = (error: unknown) => new SignInThrottleStoreUnavailable({ message: innermostMessage(error) })

export const layer = Layer.effect(
  SignInThrottleStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* Effect.forkScoped(
      sweep(sql).pipe(
        Effect.catchCause((cause) => Effect.logWarning("ended sign-in attempts could not be swept", cause)),
        Effect.repeat(Schedule.spaced("1 minute"))
      )
    )
    return SignInThrottleStore.of({
      record: ({ counted, trust, firstUnless }) => {
        const document = counted.map((key: CountedKey) => ({
          key: rowKey(key),
          failures: key.policy.failures,
          windowMs: Duration.toMillis(key.policy.window),
          unlessTrusted: key.unlessTrusted
        }))
        return sql<{
          now_ms: number
          full_index: number | null
          times: ReadonlyArray<number> | null
          first: boolean | null
        }>`
          SELECT now_ms, full_index, times, first FROM record_sign_in_attempt(${JSON.stringify(document)}::jsonb,
            ${trust?.account ?? null}::text, ${trust?.address ?? null}::text,
            ${firstUnless === undefined ? null : rowKey(firstUnless)}::text,
            ${firstUnless === undefined ? null : Duration.toMillis(firstUnless.policy.window)}::float8)`.pipe(
          Effect.mapError(unavailable),
          Effect.map((rows) => {
            const full = rows.flatMap((row) =>
              row.full_index === null ? [] : [{ policy: counted[row.full_index - 1]!.policy, times: row.times ?? [] }]
            )
            return full.length === 0
              ? ({ _tag: "Recorded", at: rows[0]!.now_ms, first: rows[0]!.first === true } as const)
              : ({ _tag: "Refused", nowMillis: rows[0]!.now_ms, full, waitSeconds: 0 } as const)
          }),
          Effect.withSpan("PgSignInThrottleStore.record")
        )
      },
      settle: ({ at, takeBack, clear, trust }) =>
        sql`SELECT settle_sign_in_attempt(${at}::float8, ${texts(takeBack.map(rowKey))}::text[],
          ${clear === undefined ? null : rowKey(clear)}::text, ${trust?.account ?? null}::text,
          ${trust?.address ?? null}::text, ${trustedPerAccount}::integer)`.pipe(
          Effect.mapError(unavailable),
          Effect.asVoid,
          Effect.withSpan("PgSignInThrottleStore.settle")
        )
    })
  })
)
