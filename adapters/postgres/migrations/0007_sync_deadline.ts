/**
 * A pair's own sync deadline. Every sync has an overall deadline (fetch, plan and write
 * together), the engine's default unless the integration sets this; a portal that hangs (a
 * FIFO in a file inbox, a server that never answers) then frees its slot and its lease instead
 * of holding them. NULL means the default.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE integrations ADD COLUMN sync_deadline interval`
})
