/**
 * The list statement's plans with `starting_after`, on a dataset large enough for the planner to
 * care: where an index orders the filter's matches by (detected_at, id) after fixed columns, the
 * page is an index range that starts at the cursor (so a deep page costs what the first does);
 * no combination reads `receivables` sequentially. `bench/keyset` measures the same statements.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { makeStatements } from "../../../adapters/postgres/PgReceivableStore.ts"
import type { ReceivableFilter } from "../../../core/receivables/ports/ReceivableStore.ts"
import type { DebtorId, OrgId, ReceivableId, VendorId } from "../../../core/shared/domain/Ids.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const seed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO organizations (name) SELECT 'org ' || g FROM generate_series(1, 20) g`
  yield* sql`INSERT INTO debtors (name) SELECT 'debtor ' || g FROM generate_series(1, 10) g`
  yield* sql`INSERT INTO vendors (org_id, name) SELECT o.id, 'vendor ' || g FROM organizations o, generate_series(1, 5) g`
  yield* sql`
    INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at)
    SELECT v.org_id, v.id, d.id, 'simulator', now() + interval '1 hour'
    FROM vendors v JOIN LATERAL (SELECT id FROM debtors ORDER BY md5(v.id::text || id::text) LIMIT 4) d ON true`
  yield* sql`
    INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents, currency,
      receivable_date, status, portal_status, detected_at, updated_at)
    SELECT i.org_id, 'rcv_' || md5(i.id::text || g), i.id, i.vendor_id, i.debtor_id, 'doc-' || g, 100, 'EUR',
      current_date, (ARRAY['PENDING','APPROVED','PAID','SOLD','DISPUTED','ACKNOWLEDGED'])[1 + (g % 6)], 'text',
      now() - ((g / 10) * interval '13 minutes'), now() - ((g * 7) % 2000) * interval '1 hour'
    FROM integrations i, generate_series(1, 250) g`
  yield* sql`ANALYZE`
  const [pick] = yield* sql<{ org_id: OrgId; vendor_id: VendorId; debtor_id: DebtorId; id: ReceivableId }>`
    SELECT org_id, vendor_id, debtor_id, id FROM receivables
    WHERE org_id = (SELECT min(id::text)::uuid FROM organizations)
    ORDER BY detected_at, id OFFSET 2500 LIMIT 1`
  return pick!
}).pipe(Effect.orDie)

interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Index Cond"?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}

const nodes = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodes)]

layer(TestDatabase.layer, { timeout: 120_000, excludeTestServices: true })("keyset plans", (it) => {
  it.effect("a page after a cursor is an index range from the cursor wherever an index orders the matches", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { org_id, vendor_id, debtor_id, id } = yield* seed
      const { listPage } = makeStatements(sql)
      const since = DateTime.subtractDuration(DateTime.makeUnsafe(Date.now()), "24 hours")
      // Each combination, and whether an index holds its matches in list order after fixed columns.
      const filters: ReadonlyArray<readonly [string, ReceivableFilter, boolean]> = [
        ["all", {}, true],
        ["status", { status: "PAID" }, true],
        ["debtor", { debtorId: debtor_id }, true],
        ["pair", { vendorId: vendor_id, debtorId: debtor_id }, true],
        ["pair and status", { vendorId: vendor_id, debtorId: debtor_id, status: "PAID" }, true],
        ["vendor", { vendorId: vendor_id }, false],
        ["default window", { updatedSince: since }, false]
      ]
      for (const [name, filter, ranged] of filters) {
        const [text, params] = listPage(org_id, {
          filter,
          window: { offset: 0, limit: 100 },
          startingAfter: id,
          history: Option.some(10),
          metadata: true
        }).compile()
        const [row] = yield* sql.unsafe<{ "QUERY PLAN": ReadonlyArray<{ Plan: PlanNode }> }>(
          `EXPLAIN (FORMAT JSON) ${text}`,
          params
        )
        const plan = row!["QUERY PLAN"][0]!.Plan
        const scans = nodes(plan).filter((node) => node["Relation Name"] === "receivables")
        for (const scan of scans)
          assert.notStrictEqual(scan["Node Type"], "Seq Scan", `${name}: ${JSON.stringify(plan)}`)
        if (ranged) {
          // An index scan, or a bitmap of one when the planner expects few rows after the cursor
          // (it then sorts them): either way the index entries read start at the cursor.
          const indexed = nodes(plan).filter((node) => node["Index Name"]?.startsWith("receivables_"))
          assert.isTrue(
            indexed.some((scan) => /ROW\(detected_at, id\) > ROW\(/.test(scan["Index Cond"] ?? "")),
            `${name}: no index range from the cursor in ${JSON.stringify(indexed.map((scan) => scan["Index Cond"]))}`
          )
        }
      }
    })
  )
})
