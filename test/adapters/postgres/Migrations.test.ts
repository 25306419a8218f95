import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as Migrations from "../../../adapters/postgres/Migrations.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const tables = [
  "organizations",
  "api_keys",
  "vendors",
  "debtors",
  "integrations",
  "receivables",
  "receivable_history",
  "events",
  "sync_runs",
  "audit_log",
  "api_key_usage"
]

const rcv = (n: number) => `rcv_${n.toString(16).padStart(32, "0")}`

// An organization with one vendor, one debtor and their integration; returns their ids.
const seedPair = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Org') RETURNING id`
  const [vendor] = yield* sql<{ id: string }>`INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'V') RETURNING id`
  const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('D') RETURNING id`
  const [integration] = yield* sql<{ id: string }>`
    INSERT INTO integrations (org_id, vendor_id, debtor_id, connector)
    VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, 'simulator') RETURNING id`
  return { org: org!.id, vendor: vendor!.id, debtor: debtor!.id, integration: integration!.id }
})

const insertReceivable = (
  ids: { org: string; vendor: string; debtor: string; integration: string },
  overrides: Partial<{ id: string; vendor: string; currency: string; status: string; key: string }> = {}
) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
      INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents,
        currency, receivable_date, status, portal_status, detected_at, updated_at)
      VALUES (${ids.org}, ${overrides.id ?? rcv(1)}, ${ids.integration}, ${overrides.vendor ?? ids.vendor},
        ${ids.debtor}, ${overrides.key ?? "doc-1"}, 1000, ${overrides.currency ?? "EUR"}, '2026-01-01',
        ${overrides.status ?? "PENDING"}, 'Submitted', now(), now())`
  )

layer(TestDatabase.layer)("migrations", (it) => {
  it.effect("create every table of the data model", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ tablename: string }>`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`
      const present = new Set(rows.map((row) => row.tablename))
      for (const table of tables) assert.isTrue(present.has(table), table)
    })
  )

  it.effect("create the indexes the read and sync paths use", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ indexname: string }>`SELECT indexname FROM pg_indexes WHERE schemaname = 'public'`
      const present = new Set(rows.map((row) => row.indexname))
      for (const index of [
        "receivables_org_order_idx",
        "receivables_vendor_idx",
        "receivables_debtor_idx",
        "receivables_status_idx",
        "receivables_updated_idx",
        "receivable_history_receivable_idx",
        "integrations_due_idx",
        "events_undelivered_idx"
      ]) {
        assert.isTrue(present.has(index), index)
      }
    })
  )

  it.effect("running them again applies nothing", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* Migrations.migrate, [])
    })
  )

  it.effect("the schema refuses rows the domain forbids", () =>
    Effect.gen(function* () {
      const ids = yield* seedPair
      const refused = (effect: Effect.Effect<unknown, unknown, SqlClient.SqlClient>) =>
        effect.pipe(
          Effect.flip,
          Effect.map(() => true)
        )
      assert.isTrue(yield* refused(insertReceivable(ids, { id: "rcv_XYZ" })))
      assert.isTrue(yield* refused(insertReceivable(ids, { currency: "eur" })))
      assert.isTrue(yield* refused(insertReceivable(ids, { status: "Paid" })))
      // A receivable's vendor must be its integration's vendor.
      const other = yield* seedPair
      assert.isTrue(yield* refused(insertReceivable(ids, { vendor: other.vendor })))
      yield* insertReceivable(ids)
      // One receivable per portal document within a pair.
      assert.isTrue(yield* refused(insertReceivable(ids, { id: rcv(2) })))
      yield* insertReceivable(ids, { id: rcv(2), key: "doc-2" })
    })
  )
})
