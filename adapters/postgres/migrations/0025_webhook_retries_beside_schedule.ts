/**
 * Webhook retries keep their schedule, and come before a backlog.
 *
 * A manual retry stands beside the schedule: a delivery counts the attempts manual retries made
 * (the next delay follows the schedule's own), and keeps, while a manual retry waits, when the
 * schedule's next attempt was due (`resume_at`), where a failed manual retry leaves it. A manual
 * retry waiting now had its schedule overwritten before this: it resumes at once, so nothing waits
 * longer than it would have.
 *
 * Claims take an endpoint's due retries before its first attempts; the index serves that order
 * without sorting a backlog of new events at each claim.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE webhook_deliveries
      ADD COLUMN manual_attempts integer NOT NULL DEFAULT 0 CHECK (manual_attempts >= 0),
      ADD COLUMN resume_at timestamptz`
  yield* sql`
    UPDATE webhook_deliveries SET resume_at = next_attempt_at
    WHERE next_trigger = 'manual_retry' AND status IN ('pending', 'sending')`
  yield* sql`
    CREATE INDEX webhook_deliveries_retries_first_idx
      ON webhook_deliveries (endpoint_id, (attempts = 0), next_attempt_at, sequence NULLS FIRST)
      WHERE status IN ('pending', 'sending')`
})
