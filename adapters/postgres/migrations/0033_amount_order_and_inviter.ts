/**
 * The dashboard's amount sort reads an organization's receivables by currency, then amount, then
 * id, in either direction: one index in that order serves both, read forwards or backwards, so a
 * page is the first rows of an index range rather than a sort of every match (docs/decisions.md).
 * An invite records the dashboard user who sent it, for the team page; an invite an operator made
 * with the CLI, and every invite older than this, has none.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX receivables_amount_idx ON receivables (org_id, currency, amount_cents, id)`
  yield* sql`ALTER TABLE dashboard_invites ADD COLUMN invited_by uuid`
  yield* sql`
    ALTER TABLE dashboard_invites ADD CONSTRAINT dashboard_invites_invited_by_fkey
      FOREIGN KEY (org_id, invited_by) REFERENCES dashboard_users (org_id, id)`
})
