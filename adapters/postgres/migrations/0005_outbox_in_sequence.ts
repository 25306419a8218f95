/**
 * The events outbox keyed by its sequence. Every new receivable writes an event in the sync's
 * hottest statement, and each index on the outbox is paid for there: a key on the random event
 * id put each entry at a random place of its index, and the index of undelivered events was a
 * second entry per event. Now an event's only index entry is its sequence number, always
 * appended at the index's end. Event ids stay unique by construction (128 random bits each).
 * Delivery, when webhooks come, reads events in sequence after a position it keeps per
 * subscription (a `delivered_at` per event could not say which subscriber got it), up to the
 * oldest transaction still open, since sequence numbers are taken before commit. Events are never
 * updated: the outbox is an append-only log.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP INDEX events_undelivered_idx`
  yield* sql`ALTER TABLE events DROP COLUMN delivered_at`
  yield* sql`ALTER TABLE events DROP CONSTRAINT events_pkey`
  yield* sql`ALTER TABLE events ADD PRIMARY KEY (seq)`
})
