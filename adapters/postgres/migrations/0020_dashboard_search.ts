/**
 * The dashboard finds a receivable by its invoice number, its PO number or its id, whole or by
 * its start, at any size of organization. Each index leads with the organization (every search
 * is one organization's) and keeps the text in `text_pattern_ops`, whose byte order serves
 * `LIKE 'prefix%'` as an index range whatever the database's collation; invoice and PO numbers
 * are indexed lower-cased, as the search compares them (`INV-12` is found by `inv-12`).
 * The overview sums amounts per status and currency from an index that carries them, without
 * reading the table. The dashboard's audit also records "sync now" (`integration_sync_requested`).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX receivables_invoice_search_idx
    ON receivables (org_id, lower(vendor_receivable_id) text_pattern_ops)`
  yield* sql`CREATE INDEX receivables_po_search_idx ON receivables (org_id, lower(po_number) text_pattern_ops)`
  yield* sql`CREATE INDEX receivables_id_search_idx ON receivables (org_id, id text_pattern_ops)`
  yield* sql`CREATE INDEX receivables_totals_idx ON receivables (org_id, status, currency) INCLUDE (amount_cents)`
  yield* sql`ALTER TABLE dashboard_audit DROP CONSTRAINT dashboard_audit_action_check`
  yield* sql`
    ALTER TABLE dashboard_audit ADD CONSTRAINT dashboard_audit_action_check
      CHECK (action IN ('invite_accepted', 'sign_in', 'sign_in_failed', 'sign_out', 'sign_out_everywhere',
        'key_created', 'key_revoked', 'integration_paused', 'integration_resumed', 'integration_sync_requested',
        'totp_enabled', 'totp_disabled', 'user_invited', 'role_changed', 'user_removed'))`
})
