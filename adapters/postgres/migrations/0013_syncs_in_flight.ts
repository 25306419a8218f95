/**
 * A pair's syncs in flight as a count on its row, and a sync's events numbered by its commit.
 *
 * `integrations.syncs_in_flight` counts the syncs of the pair between their in-flight mark and
 * their end; the mark (`sync_started_at`, 0009) is set by the first of them and cleared by the
 * last. It replaces a session advisory lock held from the mark to the end, across transactions,
 * which a pooler in transaction mode cannot keep, and the round trip of its unlock.
 *
 * `sync_runs.event_batch` and `sync_runs.events` name a successful run's batch of events and
 * their count. A deferred constraint trigger takes the batch's range of sequence numbers from its
 * organization's counter when the run's transaction commits: the counter's row is locked for the
 * commit alone (the next sync of the organization to end numbers after it, so in commit order, as
 * 0009 requires), and the numbering costs no round trip of its own.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE integrations ADD COLUMN syncs_in_flight integer NOT NULL DEFAULT 0 CHECK (syncs_in_flight >= 0)`
  yield* sql`
    ALTER TABLE sync_runs
      ADD COLUMN event_batch bigint,
      ADD COLUMN events integer NOT NULL DEFAULT 0 CHECK (events >= 0),
      ADD CHECK (events = 0 OR event_batch IS NOT NULL)`
  yield* sql`
    CREATE FUNCTION number_sync_events() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      WITH counter AS (
        INSERT INTO event_counters (org_id, last_sequence) VALUES (NEW.org_id, NEW.events)
        ON CONFLICT (org_id) DO UPDATE SET last_sequence = event_counters.last_sequence + NEW.events
        RETURNING last_sequence)
      INSERT INTO event_batches (id, org_id, first_sequence, last_sequence, committed_at)
      SELECT NEW.event_batch, NEW.org_id, last_sequence - NEW.events + 1, last_sequence, clock_timestamp()
      FROM counter;
      RETURN NULL;
    END
    $$`
  yield* sql`
    CREATE CONSTRAINT TRIGGER sync_runs_number_events AFTER INSERT ON sync_runs
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.events > 0) EXECUTE FUNCTION number_sync_events()`
})
