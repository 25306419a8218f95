/**
 * The database's incarnations and the gaps they opened in the events feed (`Incarnation.ts`). A
 * restored database is an earlier state of the original: without a gap it would hand out again
 * the sequences the original gave after the backup, and a consumer past them would skip the new
 * events. Each incarnation records what tells this database from a copy of it (the cluster's
 * system identifier, the database's oid, the WAL timeline); a process that finds them changed
 * opens a new incarnation, which moves every organization's counter forward and records the gap,
 * so that a cursor inside it is answered `cursor_expired`.
 *
 * Additive only: builds at 0029 work on it unchanged (they serve no gap as expired, so after a
 * restore only builds with this migration should serve: `docs/operators.md`).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE database_incarnations (
      incarnation integer PRIMARY KEY CHECK (incarnation >= 1),
      system_identifier text,
      database_oid bigint NOT NULL,
      timeline integer NOT NULL,
      reason text NOT NULL CHECK (reason IN ('first', 'detected', 'declared')),
      opened_at timestamptz NOT NULL
    )`
  // A cursor strictly between `after_sequence` and `through_sequence` was never given by this
  // incarnation: it is of another one.
  yield* sql`
    CREATE TABLE event_gaps (
      org_id uuid NOT NULL REFERENCES organizations (id),
      incarnation integer NOT NULL REFERENCES database_incarnations (incarnation),
      after_sequence bigint NOT NULL CHECK (after_sequence >= 0),
      through_sequence bigint NOT NULL,
      PRIMARY KEY (org_id, through_sequence),
      CHECK (through_sequence > after_sequence)
    )`
})
