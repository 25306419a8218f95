/**
 * A small dataset over two organizations, written straight to the tables (the sync engine is not
 * needed to read): vendors, shared debtors, pairs with schedules (one paused), receivables in
 * every status with history and metadata, and API keys (one revoked). Times are relative to now,
 * so the default 24-hour window has receivables on both sides of its edge.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"

const testKey = (seed: number) => makeApiKey("pr", new Uint8Array(secretBytes).fill(seed))

export const keys = {
  orgA: testKey(1),
  orgB: testKey(2),
  revoked: testKey(3)
}

export interface Fixture {
  readonly orgA: string
  readonly orgB: string
  readonly vendorA1: string
  readonly vendorA2: string
  readonly vendorA3: string
  readonly vendorB1: string
  readonly debtor1: string
  readonly debtor2: string
  readonly debtorB: string
  /** Org A's receivables in list order, with what the tests need to know of them. */
  readonly receivablesA: ReadonlyArray<Row>
  readonly receivableB: string
}

export interface Row {
  readonly id: string
  readonly vendor: string
  readonly debtor: string
  readonly status: string
  /** How long before the fixture was written its `updated_at` lies. */
  readonly updatedHoursAgo: number
}

const rcv = (n: number) => `rcv_${n.toString(16).padStart(32, "0")}`

export const insertFixture = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const one = <A extends object>(rows: ReadonlyArray<A>) => rows[0]!
  const id = (rows: ReadonlyArray<{ readonly id: string }>) => one(rows).id

  const orgA = id(yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Org A') RETURNING id`)
  const orgB = id(yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Org B') RETURNING id`)
  yield* sql`
    INSERT INTO api_keys (org_id, key_hash, display_start, revoked_at) VALUES
      (${orgA}, sha256(convert_to(${keys.orgA}, 'UTF8')), 'pr_live_or', NULL),
      (${orgB}, sha256(convert_to(${keys.orgB}, 'UTF8')), 'pr_live_or', NULL),
      (${orgA}, sha256(convert_to(${keys.revoked}, 'UTF8')), 'pr_live_re', now())`

  const vendor = (org: string, name: string) =>
    Effect.map(sql<{ id: string }>`INSERT INTO vendors (org_id, name) VALUES (${org}, ${name}) RETURNING id`, id)
  const vendorA1 = yield* vendor(orgA, "Acme Supplies")
  const vendorA2 = yield* vendor(orgA, "Beta Parts")
  // A vendor with no receivables and no pair: listed, with no schedule.
  const vendorA3 = yield* vendor(orgA, "Acme Supplies")
  const vendorB1 = yield* vendor(orgB, "Other Org Vendor")

  const debtor = (name: string) =>
    Effect.map(sql<{ id: string }>`INSERT INTO debtors (name) VALUES (${name}) RETURNING id`, id)
  const debtor1 = yield* debtor("Globex")
  const debtor2 = yield* debtor("Initech")
  const debtorB = yield* debtor("Only Org B Buys Here")

  const pair = (org: string, v: string, d: string, nextSync: string, paused = false) =>
    Effect.map(
      sql<{ id: string }>`
        INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at, paused_at)
        VALUES (${org}, ${v}, ${d}, 'simulator', now() + ${nextSync}::interval, ${paused ? sql`now()` : sql`NULL`})
        RETURNING id`,
      id
    )
  const a1d1 = yield* pair(orgA, vendorA1, debtor1, "1 hour")
  const a1d2 = yield* pair(orgA, vendorA1, debtor2, "2 hours")
  const a2d1 = yield* pair(orgA, vendorA2, debtor1, "5 minutes", true)
  // Org B's pair with the shared debtor is due sooner than any of org A's: it must never show.
  const b1d1 = yield* pair(orgB, vendorB1, debtor1, "1 minute")
  const b1dB = yield* pair(orgB, vendorB1, debtorB, "1 minute")

  const pairs: Record<string, { integration: string; vendor: string; debtor: string; org: string }> = {
    a1d1: { integration: a1d1, vendor: vendorA1, debtor: debtor1, org: orgA },
    a1d2: { integration: a1d2, vendor: vendorA1, debtor: debtor2, org: orgA },
    a2d1: { integration: a2d1, vendor: vendorA2, debtor: debtor1, org: orgA },
    b1d1: { integration: b1d1, vendor: vendorB1, debtor: debtor1, org: orgB },
    b1dB: { integration: b1dB, vendor: vendorB1, debtor: debtorB, org: orgB }
  }

  // [pair, status, portal status, detected (hours ago), updated (hours ago)]
  const specs: ReadonlyArray<readonly [string, string, string, number, number]> = [
    ["a1d1", "PENDING", "Submitted", 72, 48],
    ["a1d1", "APPROVED", "Approved for payment", 70, 2],
    ["a1d1", "PAID", "Paid in full", 60, 23.9],
    ["a1d2", "DISPUTED", "Rejected - duplicate", 50, 24.1],
    ["a1d2", "SOLD", "Factored", 40, 1],
    ["a2d1", "ACKNOWLEDGED", "Awaiting goods receipt", 30, 30],
    ["a2d1", "PENDING", "OVERDUE", 20, 0.5],
    ["a1d1", "APPROVED", "Scheduled for payment", 10, 10]
  ]
  const receivablesA: Array<Row> = []
  let n = 1
  for (const [name, status, portal, detected, updated] of specs) {
    const p = pairs[name]!
    const rid = rcv(n++)
    yield* sql`
      INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, vendor_receivable_id,
        amount_cents, currency, receivable_date, due_date, status, portal_status, po_number, metadata,
        detected_at, updated_at)
      VALUES (${p.org}, ${rid}, ${p.integration}, ${p.vendor}, ${p.debtor}, ${`doc-${rid}`}, ${`INV-${n}`},
        ${n * 1000_00}, 'EUR', '2026-10-01', ${n % 2 === 0 ? "2026-11-30" : null}, ${status}, ${portal},
        ${n % 3 === 0 ? null : `PO-${n}`}, ${JSON.stringify({ payment_terms: "NET30", supplier_code: `S-${n}` })}::jsonb,
        now() - ${`${detected} hours`}::interval, now() - ${`${updated} hours`}::interval)`
    receivablesA.push({ id: rid, vendor: p.vendor, debtor: p.debtor, status, updatedHoursAgo: updated })
  }
  // Twelve history entries on the first receivable, one a minute, oldest first.
  for (let i = 0; i < 12; i++) {
    yield* sql`
      INSERT INTO receivable_history (org_id, receivable_id, changed_at, changes)
      VALUES (${orgA}, ${rcv(1)}, now() - ${`${60 - i} minutes`}::interval,
        ${JSON.stringify({ amount_cents: { from: i, to: i + 1 } })}::jsonb)`
  }

  const receivableB = rcv(1000)
  const pb = pairs.b1d1!
  yield* sql`
    INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents, currency,
      receivable_date, status, portal_status, metadata, detected_at, updated_at)
    VALUES (${orgB}, ${receivableB}, ${pb.integration}, ${pb.vendor}, ${pb.debtor}, 'doc-b', 500, 'USD', '2026-10-01',
      'PAID', 'Paid', '{}'::jsonb, now() - interval '1 hour', now() - interval '1 hour')`
  const pbB = pairs.b1dB!
  yield* sql`
    INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents, currency,
      receivable_date, status, portal_status, metadata, detected_at, updated_at)
    VALUES (${orgB}, ${rcv(1001)}, ${pbB.integration}, ${pbB.vendor}, ${pbB.debtor}, 'doc-b2', 700, 'USD',
      '2026-10-01', 'PENDING', 'Open', '{}'::jsonb, now() - interval '1 hour', now() - interval '1 hour')`

  const fixture: Fixture = {
    orgA,
    orgB,
    vendorA1,
    vendorA2,
    vendorA3,
    vendorB1,
    debtor1,
    debtor2,
    debtorB,
    receivablesA,
    receivableB
  }
  return fixture
}).pipe(Effect.orDie)
