/**
 * The list statement's plans on a dataset large enough for the planner to care (100,000
 * receivables over 50 organizations): every filter combination of spec section 4.5, within one
 * organization, reads `receivables` through an index, never a sequential scan; a vendor's page
 * reads each pair's names once, and a page's later chunk counts no further than it needs.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Option } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { makeStatements } from "../../../adapters/postgres/PgReceivableStore.ts"
import type { ReceivableFilter } from "../../../core/receivables/ports/ReceivableStore.ts"
import type { DebtorId, OrgId, ReceivableId, VendorId } from "../../../core/shared/domain/Ids.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const seed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO organizations (name) SELECT 'org ' || g FROM generate_series(1, 50) g`
  yield* sql`INSERT INTO debtors (name) SELECT 'debtor ' || g FROM generate_series(1, 20) g`
  yield* sql`INSERT INTO vendors (org_id, name) SELECT o.id, 'vendor ' || g FROM organizations o, generate_series(1, 5) g`
  yield* sql`
    INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at)
    SELECT v.org_id, v.id, d.id, 'simulator', now() + random() * interval '1 hour'
    FROM vendors v JOIN LATERAL (SELECT id FROM debtors ORDER BY md5(v.id::text || id::text) LIMIT 4) d ON true`
  yield* sql`
    INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents, currency,
      receivable_date, status, portal_status, detected_at, updated_at)
    SELECT i.org_id, 'rcv_' || md5(i.id::text || g), i.id, i.vendor_id, i.debtor_id, 'doc-' || g,
      (random() * 1000000)::bigint, 'EUR', current_date,
      (ARRAY['PENDING','APPROVED','PAID','SOLD','DISPUTED','ACKNOWLEDGED'])[1 + (g % 6)], 'text',
      now() - (g * interval '13 minutes'), now() - ((g * 7) % 2000) * interval '1 hour'
    FROM integrations i, generate_series(1, 100) g`
  yield* sql`
    INSERT INTO receivable_history (org_id, receivable_id, changed_at, changes)
    SELECT r.org_id, r.id, r.updated_at - (h * interval '1 day'), '{}'::jsonb
    FROM receivables r, generate_series(1, 3) h`
  yield* sql`ANALYZE`
  const [pick] = yield* sql<{ org_id: OrgId; vendor_id: VendorId; debtor_id: DebtorId }>`
    SELECT org_id, vendor_id, debtor_id FROM integrations ORDER BY org_id, vendor_id LIMIT 1`
  return pick!
}).pipe(Effect.orDie)

interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Actual Rows"?: number
  readonly "Actual Loops"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

const nodes = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodes)]

layer(TestDatabase.layer, { timeout: 120_000, excludeTestServices: true })("read path plans", (it) => {
  it.effect("every filter combination reads receivables through an index", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { org_id, vendor_id, debtor_id } = yield* seed
      const { listPage } = makeStatements(sql)
      const since = DateTime.subtractDuration(DateTime.makeUnsafe(Date.now()), "24 hours")
      // Each combination and the indexes that can serve it.
      const filters: ReadonlyArray<readonly [string, ReceivableFilter, ReadonlyArray<string>]> = [
        ["default window", { updatedSince: since }, ["updated"]],
        ["all", {}, ["org_order"]],
        ["vendor", { vendorId: vendor_id }, ["vendor"]],
        ["debtor", { debtorId: debtor_id }, ["debtor"]],
        ["pair", { vendorId: vendor_id, debtorId: debtor_id }, ["vendor"]],
        ["status", { status: "PAID" }, ["status"]],
        ["vendor and status", { vendorId: vendor_id, status: "PAID" }, ["vendor", "status"]],
        ["pair and status", { vendorId: vendor_id, debtorId: debtor_id, status: "PAID" }, ["vendor", "status"]],
        ["debtor since", { debtorId: debtor_id, updatedSince: since }, ["debtor", "updated"]]
      ]
      for (const [name, filter, expected] of filters) {
        for (const history of [Option.none(), Option.some(10)]) {
          const [text, params] = listPage(org_id, {
            filter,
            window: { offset: 0, limit: 100 },
            history,
            metadata: true
          }).compile()
          const [row] = yield* sql.unsafe<{ "QUERY PLAN": ReadonlyArray<{ Plan: PlanNode }> }>(
            `EXPLAIN (FORMAT JSON) ${text}`,
            params
          )
          const plan = row!["QUERY PLAN"][0]!.Plan
          const scans = nodes(plan).filter((node) => node["Relation Name"] === "receivables")
          assert.isAbove(scans.length, 0, name)
          for (const scan of scans) {
            assert.notStrictEqual(scan["Node Type"], "Seq Scan", `${name}: ${JSON.stringify(plan)}`)
          }
          const indexes = new Set(nodes(plan).flatMap((node) => (node["Index Name"] ? [node["Index Name"]] : [])))
          assert.isTrue(
            expected.some((index) => indexes.has(`receivables_${index}_idx`)),
            `${name} uses ${[...indexes].join(", ")}`
          )
          const historyScans = nodes(plan).filter((node) => node["Relation Name"] === "receivable_history")
          for (const scan of historyScans) assert.notStrictEqual(scan["Node Type"], "Seq Scan", `${name} history`)
        }
      }
    })
  )

  it.effect(
    "a vendor's page reads each pair's names once; a later chunk counts only one match past it",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // The first test's dataset, or this test's own when it runs alone.
        const [present] = yield* sql<{ n: bigint }>`SELECT count(*) AS n FROM receivables`
        if (Number(present!.n) === 0) yield* seed
        const [pick] = yield* sql<{ org_id: OrgId; vendor_id: VendorId }>`
        SELECT org_id, vendor_id FROM receivables GROUP BY org_id, vendor_id ORDER BY count(*) DESC, vendor_id LIMIT 1`
        const org = { id: pick!.org_id }
        const { listPage, continuedPage } = makeStatements(sql)
        const analyzed = Effect.fnUntraced(function* (statement: Statement.Statement<unknown>) {
          const [text, params] = statement.compile()
          const [row] = yield* sql.unsafe<{ "QUERY PLAN": ReadonlyArray<{ Plan: PlanNode }> }>(
            `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
            params
          )
          return nodes(row!["QUERY PLAN"][0]!.Plan)
        })
        const request = {
          filter: { vendorId: pick!.vendor_id },
          window: { offset: 0, limit: 100 },
          history: Option.none(),
          metadata: false
        }
        const page = yield* listPage(org!.id, request)
        const pairs = new Set(page.map((row) => `${row.vendor_id} ${row.debtor_id}`)).size
        assert.isBelow(pairs, page.length)
        // Rows a scan of `vendors` yields over all its loops: one a pair, not one a receivable.
        const vendorRows = (yield* analyzed(listPage(org!.id, request)))
          .filter((node) => node["Relation Name"] === "vendors")
          .reduce((sum, node) => sum + node["Actual Rows"]! * node["Actual Loops"]!, 0)
        assert.strictEqual(vendorRows, pairs)

        const after = page[9]!.id as ReceivableId
        // In list order (the organization's index), so the chunk's own keys are an index range too.
        const chunk = { ...request, filter: {}, window: { offset: 0, limit: 10 }, startingAfter: after }
        // Every scan of `receivables` stops within the chunk and the one match past it (the page
        // reads 10 rows by key, the count at most 11 index entries), where the whole count reads all.
        for (const node of yield* analyzed(continuedPage(org!.id, chunk))) {
          if (node["Relation Name"] === "receivables") assert.isAtMost(node["Actual Rows"]!, 11, JSON.stringify(node))
        }
      }),
    { timeout: 120_000 }
  )
})
