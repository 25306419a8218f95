/**
 * Waits until PostgreSQL shows a backend of the test file's own database waiting for a lock, held
 * by the backend `blockedBy` when given: a test proves that a statement is blocked by seeing it
 * wait, not by its having no answer yet after a pause. A file's tests run one at a time, so a
 * backend of its database kept waiting is the test's.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { eventually } from "./Eventually.ts"

export const waitingForLock = (what: string, options: { readonly blockedBy?: number } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const blockedBy = options.blockedBy ?? null
    yield* eventually(
      what,
      Effect.map(
        sql<{ waiting: boolean }>`
          SELECT EXISTS (SELECT 1 FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'
              AND (${blockedBy}::int IS NULL OR ${blockedBy}::int = ANY (pg_blocking_pids(pid)))) AS waiting`,
        ([row]) => row!.waiting
      )
    )
  }).pipe(Effect.orDie)

/** The backends of the test file's database idle in an open transaction, this connection's aside. */
export const idleInTransaction = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ pid: number }>`
    SELECT pid FROM pg_stat_activity
    WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()`
  return rows.map((row) => row.pid)
}).pipe(Effect.orDie)

/** The backend of this connection, for `waitingForLock`'s `blockedBy`. */
export const backendPid = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
  return row!.pid
}).pipe(Effect.orDie)
