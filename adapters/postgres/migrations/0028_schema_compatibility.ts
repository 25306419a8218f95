/**
 * What each applied migration stays compatible with, for rolling upgrades: the oldest schema
 * version (migration id) whose build keeps working once the migration is applied, as the
 * migrator of the build that brought it declared. A build older than the schema reads it to tell
 * whether it may stay ready (`PgReadiness`); it knows nothing of the newer migrations otherwise.
 * Additive only: builds at 0027 work on it unchanged.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE schema_compatibility (
      migration_id integer PRIMARY KEY,
      oldest_compatible integer NOT NULL CHECK (oldest_compatible BETWEEN 1 AND migration_id)
    )`
})
