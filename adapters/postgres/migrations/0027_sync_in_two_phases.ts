/**
 * The sync in two phases: a run fetches with no transaction open, staging what the portal answers,
 * then applies it in one short transaction (`PgPairSession.ts`).
 *
 * `sync_leases`: one row per run in flight, renewed by its heartbeat. A run whose row ran out is
 * dead (or stalled: its apply refuses, checking its row under the pair's lock); the next run to
 * start deletes such rows and what they staged. The apply holds its row (`FOR KEY SHARE`) so that
 * no one deletes it, or its staging, while it runs; a heartbeat's update is not blocked by that.
 *
 * `sync_staging`: a run's documents in fetch order, as JSON text (text keeps what `jsonb` cannot:
 * the NUL character and halves of surrogate pairs, escaped, which planning then quarantines).
 * Unlogged: it is written once and read once, a crash loses only runs that die with it, and
 * PostgreSQL empties it after one.
 *
 * `sync_runs.fetched_at` and `committed_at`: when a successful run's fetch ended and when its
 * apply committed (the clock of its last statement, just before its commit); `finished_at` is now
 * the latter too, where it was the apply transaction's start.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE sync_runs ADD COLUMN fetched_at timestamptz, ADD COLUMN committed_at timestamptz`
  yield* sql`
    CREATE TABLE sync_leases (
      run_id uuid PRIMARY KEY,
      org_id uuid NOT NULL,
      integration_id uuid NOT NULL,
      worker text NOT NULL,
      expires_at timestamptz NOT NULL,
      FOREIGN KEY (org_id, integration_id) REFERENCES integrations (org_id, id) ON DELETE CASCADE
    )`
  yield* sql`CREATE INDEX sync_leases_expiry ON sync_leases (expires_at)`
  yield* sql`CREATE INDEX sync_leases_integration ON sync_leases (org_id, integration_id)`
  yield* sql`
    CREATE UNLOGGED TABLE sync_staging (
      run_id uuid NOT NULL,
      ordinal integer NOT NULL,
      document text NOT NULL,
      PRIMARY KEY (run_id, ordinal)
    )`
})
