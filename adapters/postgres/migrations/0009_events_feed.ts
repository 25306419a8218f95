/**
 * The events feed (`GET /v1/events`) and the list's safe watermark.
 *
 * Each organization's events get a `sequence` in the order their syncs commit, so a reader that
 * has seen sequence n has seen every event committed before it, and `after=n` skips nothing
 * committed later. A sync's events are written as it goes, numbered 1, 2, ... within the sync
 * (`ordinal`) under a random batch id; at its end it takes a range of sequence numbers from its
 * organization's counter, whose row lock it holds until it commits. The next sync of the same
 * organization to end waits for that lock, so ranges are taken in commit order. An event's
 * sequence is its batch's first sequence plus its ordinal less one: numbering costs one counter
 * row and one batch row per sync, never a second write per event.
 *
 * Event ids name their place: `evt_`, the batch (16 hex digits) and the ordinal (16 hex
 * digits), so a single event is found by its key, with no index on a random id in the sync's
 * hottest statement. The batch id is random, so ids tell nothing about other organizations.
 *
 * The outbox's earlier events were never served (no endpoint read them) and their payloads are
 * not the feed's, so the feed starts empty; receivables and their history keep every change.
 *
 * `integrations.sync_started_at` marks a sync in flight: set by the database clock, and
 * committed, before the sync's transaction begins, and cleared when it ends. The receivables
 * list reads it to say up to when a client has seen every change (`next_verified_since`).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP TABLE events`
  yield* sql`
    CREATE TABLE events (
      batch bigint NOT NULL,
      ordinal bigint NOT NULL CHECK (ordinal >= 1),
      org_id uuid NOT NULL,
      type text NOT NULL
        CHECK (type IN ('receivable.created', 'receivable.updated', 'receivable.status_changed')),
      receivable_id text NOT NULL,
      created_at timestamptz NOT NULL,
      data json NOT NULL,
      PRIMARY KEY (batch, ordinal)
    )`
  yield* sql`
    CREATE TABLE event_batches (
      id bigint PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES organizations (id),
      first_sequence bigint NOT NULL CHECK (first_sequence >= 1),
      last_sequence bigint NOT NULL,
      committed_at timestamptz NOT NULL,
      CHECK (last_sequence >= first_sequence)
    )`
  yield* sql`CREATE UNIQUE INDEX event_batches_org_sequence_idx ON event_batches (org_id, last_sequence)`
  yield* sql`CREATE INDEX event_batches_committed_idx ON event_batches (committed_at)`
  // The newest sequence handed out, and the newest removed by retention (a cursor before it has
  // missed events).
  yield* sql`
    CREATE TABLE event_counters (
      org_id uuid PRIMARY KEY REFERENCES organizations (id),
      last_sequence bigint NOT NULL,
      pruned_through bigint NOT NULL DEFAULT 0
    )`
  yield* sql`ALTER TABLE integrations ADD COLUMN sync_started_at timestamptz`
})
