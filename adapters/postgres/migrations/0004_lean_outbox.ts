/**
 * The events outbox is a log written once per change, in the hottest statement of a sync; every
 * index and reference on it is paid for by every new receivable. It keeps what delivery needs:
 * the event's public id as its key, and the undelivered events in order. The reference to the
 * receivable goes (receivables are never deleted, and an event is written in the same statement
 * as its receivable), and so do the index by receivable, which nothing reads, and the key on
 * the sequence number, which a sequence already makes unique.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE events DROP CONSTRAINT events_org_id_receivable_id_fkey`
  yield* sql`DROP INDEX events_receivable_idx`
  yield* sql`ALTER TABLE events DROP CONSTRAINT events_pkey`
  yield* sql`ALTER TABLE events DROP CONSTRAINT events_id_key`
  yield* sql`ALTER TABLE events ADD PRIMARY KEY (id)`
})
