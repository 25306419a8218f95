/**
 * What a key may do beyond reading: `permissions`, empty for every key made before this migration
 * and for every key made without one, so keys stay read-only unless an operator grants more. The
 * check names each permission the service knows; a key never holds one it does not.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE api_keys
      ADD COLUMN permissions text[] NOT NULL DEFAULT '{}'
        CHECK (permissions <@ ARRAY['webhooks']::text[])`
})
