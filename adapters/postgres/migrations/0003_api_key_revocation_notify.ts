/**
 * Every change to a key's revocation, and every removed key, is announced on the
 * `api_key_revoked` channel with the key's id, so that each running API process drops it from
 * its cache of verified keys at once, whoever revoked it (the CLI, or SQL by hand).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE FUNCTION api_key_revoked_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('api_key_revoked', OLD.id::text);
      RETURN NULL;
    END
    $$`
  yield* sql`
    CREATE TRIGGER api_key_revoked AFTER UPDATE OF revoked_at, key_hash OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION api_key_revoked_notify()`
})
