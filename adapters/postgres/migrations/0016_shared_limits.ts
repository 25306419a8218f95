/**
 * Limits shared by every process on the database.
 *
 * `rate_limits`: one row per rate limit with its theoretical arrival time (`core/shared/domain/RateLimit.ts`)
 * in epoch milliseconds of the database's clock, and whether the latest request passed (what the
 * statement that moved it returns). A row whose TAT has passed is a full limit and may be deleted
 * at any time. The fill factor leaves room on each page so that a row's update stays on its page
 * (no index covers the columns that change).
 *
 * `requests_in_flight`: one row per request being answered, with a lease. The answering process
 * deletes it when the answer is done; a process that dies leaves its rows, which stop counting when
 * their lease ends (the request deadline and a margin: no request is answered longer). Counting rows
 * rather than keeping a count per key is what lets a crashed process's share end on its own, with
 * no heartbeat to keep. `admit_request_in_flight` counts and inserts under a transaction-scoped lock
 * on the organization (a key belongs to one), each count in a snapshot of its own taken once the
 * lock is held, so two processes cannot both take the last place; one call is one statement, which
 * a transaction-mode pooler runs as it is. It also deletes the organization's expired rows.
 *
 * Both tables are UNLOGGED: a write costs no WAL flush, and after a crash of the database they are
 * empty, every limit full and nothing in flight, which is acceptable for limits of seconds.
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
  yield* sql`
    CREATE UNLOGGED TABLE requests_in_flight (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL,
      key_id uuid NOT NULL,
      lease_until timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX requests_in_flight_org ON requests_in_flight (org_id, key_id)`
  yield* sql.unsafe(`
    CREATE FUNCTION admit_request_in_flight(
      p_org uuid, p_key uuid, p_per_key integer, p_per_org integer, p_lease interval
    ) RETURNS TABLE (admitted uuid, refused text) LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('requests_in_flight ' || p_org::text, 0));
      DELETE FROM requests_in_flight r WHERE r.org_id = p_org AND r.lease_until <= clock_timestamp();
      IF (SELECT count(*) FROM requests_in_flight r WHERE r.org_id = p_org AND r.key_id = p_key) >= p_per_key THEN
        RETURN QUERY SELECT NULL::uuid, 'key'::text;
      ELSIF (SELECT count(*) FROM requests_in_flight r WHERE r.org_id = p_org) >= p_per_org THEN
        RETURN QUERY SELECT NULL::uuid, 'organization'::text;
      ELSE
        RETURN QUERY
          INSERT INTO requests_in_flight AS r (org_id, key_id, lease_until)
          VALUES (p_org, p_key, clock_timestamp() + p_lease)
          RETURNING r.id, NULL::text;
      END IF;
    END $$`)
})
