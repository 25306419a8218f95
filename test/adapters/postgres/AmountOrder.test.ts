/**
 * The dashboard's amount sort (issue 46): amounts compare only within a currency, so the list is
 * ordered by currency, then amount, then id, in the direction asked; paging through it by offset
 * returns each of the organization's receivables once, ties included; and on an organization of
 * 20,000 receivables a page is read from `receivables_amount_idx`, not sorted from every row.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgReceivableSearch from "../../../adapters/postgres/PgReceivableSearch.ts"
import { ReceivableSearch, type SearchOrder } from "../../../core/receivables/ports/ReceivableSearch.ts"
import type { OrgId } from "../../../core/shared/domain/Ids.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

/** A receivable id that sorts by its organization's letter (a hexadecimal digit), then by its index. */
const idOf = (letter: string, index: number) => `rcv_${letter}${index.toString(16).padStart(31, "0")}`

/** An organization with one pair; its receivables are `[currency, amount in cents]`, ids in order. */
const seedOrganization = (letter: string, amounts: ReadonlyArray<readonly [string, number]>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [org] = yield* sql<{ id: OrgId }>`INSERT INTO organizations (name) VALUES (${`org ${letter}`}) RETURNING id`
    const [vendor] = yield* sql<{ id: string }>`
      INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'Acme') RETURNING id`
    const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('Globex') RETURNING id`
    const [pair] = yield* sql<{ id: string }>`
      INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at)
      VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, 'simulator', now()) RETURNING id`
    for (const [index, [currency, cents]] of amounts.entries()) {
      // Detected in the opposite order of the ids, so that neither breaks an amount's tie for the other.
      yield* sql`
        INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents, currency,
          receivable_date, status, portal_status, detected_at, updated_at)
        VALUES (${org!.id}, ${idOf(letter, index)}, ${pair!.id}, ${vendor!.id},
          ${debtor!.id}, ${`doc-${index}`}, ${cents}, ${currency}, '2026-10-01', 'PENDING', 'Open',
          now() - ${`${index} minutes`}::interval, now())`
    }
    return org!.id
  }).pipe(Effect.orDie)

// The issue's amounts, with ties of currency and amount, and a third currency.
const amounts: ReadonlyArray<readonly [string, number]> = [
  ["SEK", 4_299_183],
  ["EUR", 123_450],
  ["SEK", 91_492],
  ["EUR", 4_200],
  ["EUR", 4_200],
  ["SEK", 91_492],
  ["USD", 100],
  ["EUR", 4_200],
  ["SEK", 500_000_00]
]

const pageThrough = (org: OrgId, order: SearchOrder, limit: number) =>
  Effect.gen(function* () {
    const search = yield* ReceivableSearch
    const seen: Array<{ id: string; currency: string; amountCents: number }> = []
    // Bounded: one page more than the rows need, so that a search that never ends the list fails.
    for (let offset = 0; offset <= amounts.length + limit; offset += limit) {
      const page = yield* search.search(org, { text: undefined, filter: {}, order, window: { offset, limit } })
      assert.strictEqual(page.totalCount, amounts.length)
      if (page.items.length === 0) break
      seen.push(...page.items.map((r) => ({ id: r.id, currency: r.currency, amountCents: r.amountCents })))
    }
    return seen
  })

const expected = (ids: ReadonlyArray<string>, descending: boolean) => {
  const rows = amounts.map(([currency, amountCents], index) => ({ id: ids[index]!, currency, amountCents }))
  const sign = descending ? -1 : 1
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return rows.toSorted(
    (a, b) => sign * (text(a.currency, b.currency) || a.amountCents - b.amountCents || text(a.id, b.id))
  )
}

interface PlanNode {
  readonly "Node Type": string
  readonly "Index Name"?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}

const nodes = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodes)]

layer(PgReceivableSearch.layer.pipe(Layer.provideMerge(TestDatabase.layer)), {
  timeout: 60_000,
  excludeTestServices: true
})("the dashboard's amount sort", (it) => {
  it.effect("orders by currency, then amount, then id; paging returns every receivable once, both ways", () =>
    Effect.gen(function* () {
      const org = yield* seedOrganization("a", amounts)
      // Another organization's receivables sort among these and must never show.
      yield* seedOrganization("b", [
        ["EUR", 4_200],
        ["AAA", 1]
      ])
      const ids = amounts.map((_, index) => idOf("a", index))
      for (const descending of [false, true]) {
        for (const limit of [1, 2, 4]) {
          const seen = yield* pageThrough(org, { key: "amount", descending }, limit)
          assert.deepStrictEqual(seen, expected(ids, descending), `descending: ${descending}, ${limit} a page`)
          assert.strictEqual(new Set(seen.map((r) => r.id)).size, amounts.length)
        }
      }
    })
  )

  it.effect("a page of a large organization is read from the amount index, in either direction", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const org = yield* seedOrganization("c", [["EUR", 1]])
      yield* sql`
        INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents, currency,
          receivable_date, status, portal_status, detected_at, updated_at)
        SELECT r.org_id, 'rcv_c' || lpad(to_hex(g), 31, '0'), r.integration_id, r.vendor_id, r.debtor_id, 'doc-' || g,
          (g * 7919) % 1000000, (ARRAY['EUR', 'SEK', 'USD'])[1 + g % 3], r.receivable_date, r.status, r.portal_status,
          now() - g * interval '1 minute', now()
        FROM receivables r, generate_series(1, 20000) g WHERE r.org_id = ${org}`
      yield* sql`ANALYZE receivables`
      const statement = PgReceivableSearch.searchStatement(sql)
      for (const descending of [false, true]) {
        const [text, params] = statement(org, {
          text: undefined,
          filter: {},
          order: { key: "amount", descending },
          window: { offset: 0, limit: 50 }
        }).compile()
        const [row] = yield* sql.unsafe<{ "QUERY PLAN": ReadonlyArray<{ Plan: PlanNode }> }>(
          `EXPLAIN (FORMAT JSON) ${text}`,
          params
        )
        const plan = nodes(row!["QUERY PLAN"][0]!.Plan)
        assert.isTrue(
          plan.some((node) => node["Index Name"] === "receivables_amount_idx"),
          `descending: ${descending}: ${JSON.stringify(plan.map((node) => [node["Node Type"], node["Index Name"]]))}`
        )
      }
    }).pipe(Effect.orDie)
  )
})
