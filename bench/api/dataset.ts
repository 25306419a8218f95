/**
 * The API benchmark's dataset, generated inside PostgreSQL: 100 organizations, each with 10
 * vendors paired with 5 of 50 shared debtors (5,000 pairs), 200 receivables per pair (1,000,000),
 * 5 to 10 metadata keys each, 1 to 5 history entries each (about 3,000,000), and one API key per
 * organization, `keyOf(n)`. About 3% of receivables were updated in the last 24 hours,
 * so the default list window holds a few pages per organization. In smoke mode: 3 organizations,
 * 2 receivables per pair.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { option, sized } from "../support/Smoke.ts"

export const organizations = sized(100, 3)
/** BENCH_PER_PAIR: 20 makes a dataset of 100,000 receivables, for trying a change before the full size. */
const perPair = option("BENCH_PER_PAIR", 200, 2)
/** The key of the n-th organization (from 1), made from fixed bytes so runs can reuse a dataset. */
export const keyOf = (org: number) => makeApiKey("pr", new Uint8Array(secretBytes).fill(org))

export const generate = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Bulk load without per-row reference checks; the generator builds consistent references.
  yield* sql`SET session_replication_role = replica`
  yield* sql`
    INSERT INTO organizations (id, name)
    SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'Organization ' || g
    FROM generate_series(1, ${organizations}) g`
  const keys = Array.from({ length: organizations }, (_, i) => keyOf(i + 1))
  yield* sql`
    INSERT INTO api_keys (org_id, key_hash, display_start)
    SELECT o.id, sha256(convert_to(k.key, 'UTF8')), left(k.key, 12)
    FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM organizations) o
    JOIN unnest(${keys}::text[]) WITH ORDINALITY AS k(key, n) ON k.n = o.n`
  yield* sql`INSERT INTO debtors (name) SELECT 'Debtor ' || g FROM generate_series(1, 50) g`
  yield* sql`
    INSERT INTO vendors (org_id, name) SELECT o.id, 'Vendor ' || g FROM organizations o, generate_series(1, 10) g`
  yield* sql`
    INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at)
    SELECT v.org_id, v.id, d.id, 'simulator', now() + random() * interval '1 hour'
    FROM vendors v
    JOIN LATERAL (SELECT id FROM debtors ORDER BY md5(v.id::text || id::text) LIMIT 5) d ON true`
  yield* sql`
    INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, vendor_receivable_id,
      amount_cents, currency, receivable_date, due_date, status, portal_status, po_number, metadata,
      detected_at, updated_at)
    SELECT i.org_id, 'rcv_' || md5(i.id::text || g), i.id, i.vendor_id, i.debtor_id, 'doc-' || g, 'INV-' || g,
      (random() * 10000000)::bigint, (ARRAY['EUR','USD','GBP'])[1 + g % 3], current_date - (g % 365),
      current_date - (g % 365) + 30, s.status, s.portal, 'PO-' || (g * 7),
      jsonb_build_object('payment_terms', (ARRAY['NET30','NET60'])[1 + g % 2], 'supplier_code', 'S-' || g,
        'buyer_contact', 'ap' || g || '@example.com', 'file_reference', 'export-' || g || '.csv',
        'region', 'EU') || CASE WHEN g % 2 = 0
          THEN jsonb_build_object('cost_center', 'CC-' || g, 'approver', 'user' || g, 'batch', 'B' || g % 50,
            'channel', 'portal', 'priority', 'normal')
          ELSE '{}'::jsonb END,
      d.detected, CASE WHEN (g + abs(hashtext(i.id::text))) % 33 = 0 THEN now() - random() * interval '23 hours' ELSE d.detected + interval '1 day' END
    FROM integrations i, generate_series(1, ${perPair}) g,
      LATERAL (SELECT (ARRAY['PENDING','APPROVED','PAID','SOLD','DISPUTED','ACKNOWLEDGED'])[1 + g % 6] AS status,
                      (ARRAY['Submitted','Approved for payment','Paid','Factored','Rejected','Received'])[1 + g % 6] AS portal) s,
      LATERAL (SELECT now() - interval '400 days' + (g * interval '1 day') + random() * interval '1 day' AS detected) d`
  yield* sql`
    INSERT INTO receivable_history (org_id, receivable_id, changed_at, changes)
    SELECT r.org_id, r.id, r.detected_at + h * interval '1 hour',
      jsonb_build_object('status', jsonb_build_object('from', 'PENDING', 'to', r.status),
        'portal_status', jsonb_build_object('from', 'Submitted', 'to', r.portal_status))
    FROM receivables r, generate_series(1, 1 + abs(hashtext(r.id)) % 5) h`
  yield* sql`SET session_replication_role = DEFAULT`
  yield* sql`VACUUM ANALYZE`
})
