/**
 * Rate limits shared by every process on the database: one row per limit with its theoretical
 * arrival time (`core/domain/RateLimit.ts`) in epoch milliseconds of the database's clock, and
 * whether the latest request passed (what the statement that moved it returns). UNLOGGED: a write
 * costs no WAL flush, and after a crash the table is empty, every limit full again, which is
 * acceptable for limits measured in seconds. A row whose TAT has passed is a full limit and may be
 * deleted at any time. The fill factor leaves room on each page so that a row's update stays on its
 * page (no index covers the columns that change).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE UNLOGGED TABLE rate_limits (
      name text PRIMARY KEY CHECK (length(name) <= 200),
      tat_ms double precision NOT NULL,
      admitted boolean NOT NULL
    ) WITH (fillfactor = 50)`
})
