/**
 * Secrets a dashboard page shows once, held on the server between a form's answer and the page
 * its redirect leads to (`core/accounts/ports/ShownOnceStore.ts`): sealed, under the SHA-256 of the handle
 * the browser's cookie carries, deleted when taken or once expired. Before, the cookie carried the
 * secret itself.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE dashboard_shown_once (
      handle_hash bytea PRIMARY KEY CHECK (length(handle_hash) = 32),
      kind text NOT NULL,
      org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      sealed text NOT NULL,
      expires_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX dashboard_shown_once_expiry ON dashboard_shown_once (expires_at)`
})
