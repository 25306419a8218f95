/**
 * The dashboard's receivable pages over a real socket: finding a receivable by its invoice
 * number, PO number or id (whole or its start, any letter case, `%` and `_` taken literally, never
 * another organization's), the API's filters, the order newest first unless a column is chosen,
 * numbered pages walked through every receivable once, the list kept when coming back from a
 * receivable, queries the page cannot run shown as the problem (not as "0 match"), and one
 * receivable with its history in plain words and money as money.
 */
import { assert, layer } from "@effect/vitest"
import { Context, DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../app/Layers.ts"
import { readCsv } from "../support/CsvReader.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import { insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

/**
 * Org A's fixture (invoices INV-2 to INV-9), 120 more of its receivables from one more pair,
 * updated two days ago, with invoices BULK-0001 to BULK-0120 (BULK-0007 is `50%_OFF`) and PO
 * numbers `Order-<n>`; org B's receivable carries INV-2 too.
 */
const seeded = Effect.gen(function* () {
  const fixture = yield* insertFixture
  const sql = yield* SqlClient.SqlClient
  const [vendor] = yield* sql<{ id: string }>`
    INSERT INTO vendors (org_id, name) VALUES (${fixture.orgA}, 'Bulk Vendor') RETURNING id`
  const [pair] = yield* sql<{ id: string }>`
    INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at)
    VALUES (${fixture.orgA}, ${vendor!.id}, ${fixture.debtor2}, 'simulator', now() + interval '1 hour') RETURNING id`
  yield* sql`
    INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, vendor_receivable_id,
      po_number, amount_cents, currency, receivable_date, status, portal_status, metadata, detected_at, updated_at)
    SELECT ${fixture.orgA}, 'rcv_' || lpad(to_hex(5000 + n), 32, '0'), ${pair!.id}, ${vendor!.id}, ${fixture.debtor2},
      'bulk-' || n, CASE WHEN n = 7 THEN '50%_OFF' ELSE 'BULK-' || lpad(n::text, 4, '0') END, 'Order-' || n,
      n * 100, 'EUR', '2026-10-01', 'PAID', 'Paid', '{}'::jsonb,
      now() - interval '100 hours' + n * interval '1 second', now() - interval '48 hours'
    FROM generate_series(1, 120) AS n`
  yield* sql`UPDATE receivables SET vendor_receivable_id = 'INV-2' WHERE org_id = ${fixture.orgB}`
  return { ...fixture, bulkVendor: vendor!.id }
})

class Seeded extends Context.Service<Seeded, Effect.Success<typeof seeded>>()("test/DashboardReceivablesSeeded") {}

const TestLayer = Layer.mergeAll(serverLayer({ dashboard: true }), AccountsLive, Layer.effect(Seeded, seeded)).pipe(
  Layer.provideMerge(TestDatabase.layer)
)

const linkPattern = /href="\/dashboard\/receivables\/(rcv_[0-9a-f]{32})(?:\?from=[^"]*)?"/g
const idsOn = (body: string) => [...body.matchAll(linkPattern)].map((m) => m[1]!)
const unescapeHref = (href: string) => href.replaceAll("&amp;", "&")
const nextOf = (body: string) => {
  const found = /href="([^"]+)" rel="next"/.exec(body)?.[1]
  return found === undefined ? undefined : unescapeHref(found)
}

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard's receivables over HTTP", (it) => {
  it.effect("a search finds invoice numbers, PO numbers and ids, whole or by their start, in one organization", () =>
    Effect.gen(function* () {
      const fixture = yield* Seeded
      const sql = yield* SqlClient.SqlClient
      const { client } = yield* signedIn(yield* BaseUrl, fixture.orgA, "member")
      const ofOrgA = (where: (row: { invoice: string | null; po: string | null; id: string }) => boolean) =>
        Effect.map(
          sql<{ id: string; invoice: string | null; po: string | null }>`
            SELECT id, vendor_receivable_id AS invoice, po_number AS po FROM receivables
            WHERE org_id = ${fixture.orgA} ORDER BY detected_at DESC, id DESC`,
          (rows) => rows.filter(where).map((row) => row.id)
        )
      const first = fixture.receivablesA[0]!.id
      const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
        ["INV-2", yield* ofOrgA((row) => row.invoice === "INV-2")],
        ["inv-2", yield* ofOrgA((row) => row.invoice === "INV-2")],
        ["  INV-  ", yield* ofOrgA((row) => row.invoice?.startsWith("INV-") === true)],
        ["bulk-001", yield* ofOrgA((row) => row.invoice?.startsWith("BULK-001") === true)],
        ["po-4", yield* ofOrgA((row) => row.po === "PO-4")],
        ["order-11", yield* ofOrgA((row) => row.po?.startsWith("Order-11") === true)],
        [first, [first]],
        [first.slice(0, 35), yield* ofOrgA((row) => row.id.startsWith(first.slice(0, 35)))],
        // `%` and `_` are characters to find, not patterns.
        ["50%_", yield* ofOrgA((row) => row.invoice === "50%_OFF")],
        ["5%", []],
        ["_", []],
        [fixture.receivableB, []]
      ]
      for (const [text, expected] of cases) {
        const page = yield* run(() => client.get(`/dashboard/receivables?q=${encodeURIComponent(text)}`))
        assert.strictEqual(page.status, 200, text)
        assert.deepStrictEqual(idsOn(page.body), expected, text)
        if (expected.length === 0) {
          assert.include(page.body, "No receivable matches", text)
        } else {
          assert.include(page.body, `${expected.length} receivable${expected.length === 1 ? "" : "s"} match`, text)
        }
      }
      assert.isAbove((yield* ofOrgA((row) => row.invoice?.startsWith("BULK-001") === true)).length, 5)
      // The box shows what was searched.
      const shown = yield* run(() => client.get("/dashboard/receivables?q=INV-2"))
      assert.match(shown.body, /<input id="q" name="q" type="search" value="INV-2"/)
    })
  )

  it.effect("each filter lists exactly the organization's receivables that match it, newest first", () =>
    Effect.gen(function* () {
      const fixture = yield* Seeded
      const sql = yield* SqlClient.SqlClient
      const { client } = yield* signedIn(yield* BaseUrl, fixture.orgA, "member")
      const since = DateTime.formatIso(DateTime.subtract(yield* DateTime.now, { hours: 24 }))
      type Row = { id: string; vendor_id: string; debtor_id: string; status: string; fresh: boolean }
      const cases: ReadonlyArray<readonly [string, (row: Row) => boolean]> = [
        [`status=PENDING`, (row) => row.status === "PENDING"],
        [`vendor=${fixture.vendorA2}`, (row) => row.vendor_id === fixture.vendorA2],
        [
          `debtor=${fixture.debtor1}&status=APPROVED`,
          (row) => row.debtor_id === fixture.debtor1 && row.status === "APPROVED"
        ],
        [`verified_since=${encodeURIComponent(since)}`, (row) => row.fresh],
        [`q=INV&status=PENDING`, (row) => row.status === "PENDING"]
      ]
      const rows = yield* sql<Row>`
        SELECT id, vendor_id, debtor_id, status, updated_at >= ${since}::timestamptz AS fresh
        FROM receivables WHERE org_id = ${fixture.orgA} ORDER BY detected_at DESC, id DESC`
      for (const [query, matches] of cases) {
        const page = yield* run(() => client.get(`/dashboard/receivables?${query}`))
        assert.strictEqual(page.status, 200, query)
        const expected = rows.filter(matches).map((row) => row.id)
        assert.isAbove(expected.length, 0, query)
        assert.isBelow(expected.length, 8, query)
        assert.deepStrictEqual(idsOn(page.body), expected, query)
        assert.include(page.body, `${expected.length} receivables match`, query)
      }
      // The form shows the filter it applied; "Clear filters" leads to the plain list.
      const filtered = yield* run(() => client.get(`/dashboard/receivables?vendor=${fixture.vendorA2}`))
      assert.match(filtered.body, new RegExp(`<option value="${fixture.vendorA2}" selected>Beta Parts</option>`))
      assert.match(filtered.body, /<a href="\/dashboard\/receivables" role="button"[^>]*>Clear filters<\/a>/)
      // A date from the date picker is a day in UTC.
      const day = yield* run(() => client.get(`/dashboard/receivables?verified_since=2000-01-01`))
      assert.strictEqual(idsOn(day.body).length, 50)
      assert.match(day.body, /type="date" value="2000-01-01"/)
    })
  )

  it.effect("a column heading sorts by it, and a second click the other way; ties newest first", () =>
    Effect.gen(function* () {
      const fixture = yield* Seeded
      const sql = yield* SqlClient.SqlClient
      const { client } = yield* signedIn(yield* BaseUrl, fixture.orgA, "member")
      const plain = yield* run(() => client.get(`/dashboard/receivables?vendor=${fixture.bulkVendor}`))
      const link = /<a href="([^"]+)">Amount<\/a>/.exec(plain.body)?.[1]
      assert.isDefined(link)
      const descending = yield* run(() => client.get(unescapeHref(link!)))
      assert.match(descending.body, /aria-sort="descending"/)
      const expected = (yield* sql<{ id: string }>`
        SELECT id FROM receivables WHERE org_id = ${fixture.orgA} AND vendor_id = ${fixture.bulkVendor}
        ORDER BY amount_cents DESC, detected_at DESC, id DESC LIMIT 50`).map((row) => row.id)
      assert.deepStrictEqual(idsOn(descending.body), expected)
      const back = /<a href="([^"]+)">Amount ↓<\/a>/.exec(descending.body)?.[1]
      const ascending = yield* run(() => client.get(unescapeHref(back!)))
      assert.match(ascending.body, /aria-sort="ascending"/)
      assert.deepStrictEqual(
        idsOn(ascending.body),
        (yield* sql<{ id: string }>`
          SELECT id FROM receivables WHERE org_id = ${fixture.orgA} AND vendor_id = ${fixture.bulkVendor}
          ORDER BY amount_cents ASC, detected_at DESC, id DESC LIMIT 50`).map((row) => row.id)
      )
    })
  )

  it.effect("a query the page cannot run is shown as the problem (400), never as no match", () =>
    Effect.gen(function* () {
      const fixture = yield* Seeded
      const { client } = yield* signedIn(yield* BaseUrl, fixture.orgA, "member")
      for (const [query, problem] of [
        ["status=LOST", "not one of the six statuses"],
        ["verified_since=yesterday", "neither a date"],
        ["vendor=acme", "not one of your vendors"],
        ["sort=colour", "sorted by detected, updated, amount, due only"],
        ["order=sideways", "either asc or desc"],
        ["page=0", "whole number from 1"],
        ["page=10001", "whole number from 1"],
        [`q=${"9".repeat(101)}`, "longer than 100 characters"]
      ] as const) {
        const page = yield* run(() => client.get(`/dashboard/receivables?${query}`))
        assert.strictEqual(page.status, 400, query)
        assert.match(page.body, new RegExp(`role="alert"><strong>Nothing was searched: [^<]*${problem}`), query)
        assert.notInclude(page.body, "match", query)
        assert.deepStrictEqual(idsOn(page.body), [], query)
      }
    })
  )

  it.effect("following the next-page links walks every receivable once, newest first, with or without a filter", () =>
    Effect.gen(function* () {
      const fixture = yield* Seeded
      const sql = yield* SqlClient.SqlClient
      const { client } = yield* signedIn(yield* BaseUrl, fixture.orgA, "member")
      for (const [start, vendor] of [
        ["/dashboard/receivables", undefined],
        [`/dashboard/receivables?vendor=${fixture.bulkVendor}`, fixture.bulkVendor]
      ] as const) {
        const expected = (yield* sql<{ id: string }>`
          SELECT id FROM receivables WHERE org_id = ${fixture.orgA}
          ${vendor === undefined ? sql`` : sql`AND vendor_id = ${vendor}`} ORDER BY detected_at DESC, id DESC`).map(
          (row) => row.id
        )
        const seen: Array<string> = []
        let path: string | undefined = start
        let pages = 0
        while (path !== undefined) {
          const page = yield* run(() => client.get(path!))
          assert.strictEqual(page.status, 200, path)
          seen.push(...idsOn(page.body))
          assert.include(page.body, `Page ${pages + 1} of ${Math.ceil(expected.length / 50)}`)
          if (pages > 0) assert.include(page.body, "First page")
          path = nextOf(page.body)
          pages++
        }
        assert.deepStrictEqual(seen, expected)
        assert.strictEqual(pages, Math.ceil(expected.length / 50))
      }
    })
  )

  it.effect("a receivable found in a list links back to that list, its search, filters, order and page kept", () =>
    Effect.gen(function* () {
      const fixture = yield* Seeded
      const { client } = yield* signedIn(yield* BaseUrl, fixture.orgA, "member")
      const listed = `/dashboard/receivables?q=bulk&vendor=${fixture.bulkVendor}&sort=amount&order=asc&page=2`
      const list = yield* run(() => client.get(listed))
      const first = /href="(\/dashboard\/receivables\/rcv_[0-9a-f]{32}\?from=[^"]+)"/.exec(list.body)?.[1]
      const detail = yield* run(() => client.get(unescapeHref(first!)))
      assert.strictEqual(detail.status, 200)
      const back = /<a href="([^"]+)">Back to the list<\/a>/.exec(detail.body)?.[1]
      assert.strictEqual(unescapeHref(back!), listed)
      // Only the list's own parameters come back, and only to the list.
      const crafted = yield* run(() =>
        client.get(`/dashboard/receivables/${idsOn(list.body)[0]}?from=${encodeURIComponent("evil=1&q=x")}`)
      )
      assert.match(crafted.body, /<a href="\/dashboard\/receivables\?q=x">Back to the list<\/a>/)
    })
  )

  it.effect(
    "a receivable's page shows its history newest first in plain words, and its metadata; another's is not found",
    () =>
      Effect.gen(function* () {
        const fixture = yield* Seeded
        const { client } = yield* signedIn(yield* BaseUrl, fixture.orgA, "member")
        const first = fixture.receivablesA[0]!
        const page = yield* run(() => client.get(`/dashboard/receivables/${first.id}`))
        assert.strictEqual(page.status, 200)
        // The history's amounts are cents: 11 → 12 cents is EUR 0.11 → EUR 0.12.
        const changes = [...page.body.matchAll(/Amount:\s*EUR\s0\.(\d\d)\s*→\s*EUR\s0\.(\d\d)/g)].map((m) => [
          Number(m[1]),
          Number(m[2])
        ])
        assert.deepStrictEqual(
          changes,
          Array.from({ length: 12 }, (_, i) => [11 - i, 12 - i])
        )
        assert.notInclude(page.body, "amount_cents")
        assert.match(page.body, /<dt><code>payment_terms<\/code><\/dt><dd>NET30<\/dd>/)
        assert.include(page.body, "Acme Supplies")
        assert.match(page.body, /<a href="\/dashboard\/receivables">Back to the list<\/a>/)
        assert.strictEqual((yield* run(() => client.get(`/dashboard/receivables/${fixture.receivableB}`))).status, 404)
        assert.strictEqual((yield* run(() => client.get("/dashboard/receivables/not-an-id"))).status, 404)
      })
  )
  // Last in the file: it changes amounts, currencies and metadata the tests above read.
  it.effect(
    "the CSV download keeps the list's order, writes amounts as decimals beside the currency, metadata on request",
    () =>
      Effect.gen(function* () {
        const fixture = yield* Seeded
        const sql = yield* SqlClient.SqlClient
        const { client } = yield* signedIn(yield* BaseUrl, fixture.orgA, "member")
        const bulk = (n: number) => `rcv_${(5000 + n).toString(16).padStart(32, "0")}`
        yield* sql`UPDATE receivables SET amount_cents = 123450 WHERE id = ${bulk(1)}`
        yield* sql`UPDATE receivables SET amount_cents = -5 WHERE id = ${bulk(2)}`
        yield* sql`UPDATE receivables SET amount_cents = 1234, currency = 'JPY' WHERE id = ${bulk(3)}`
        const metadata = { cost_center: "=CC-7", note: 'a, "quoted" note' }
        yield* sql`UPDATE receivables SET metadata = ${JSON.stringify(metadata)}::jsonb WHERE id = ${bulk(4)}`
        const download = (path: string) =>
          Effect.map(
            run(() => client.get(path)),
            (answer) => answer.body
          )

        // The list's order, as its link carries it: the first page is the file's first 50 rows.
        const list = yield* run(() => client.get("/dashboard/receivables?sort=amount&order=asc"))
        assert.include(list.body, 'href="/dashboard/receivables.csv?sort=amount&amp;order=asc"')
        const rows = readCsv(yield* download("/dashboard/receivables.csv?sort=amount&order=asc"))
        const listed = idsOn(list.body)
        let next = nextOf(list.body)
        for (let pages = 1; next !== undefined && pages < 10; pages++) {
          const following = yield* run(() => client.get(next!))
          listed.push(...idsOn(following.body))
          next = nextOf(following.body)
        }
        assert.strictEqual(listed.length, 128)
        assert.deepStrictEqual(
          rows.map((row) => row.id),
          listed,
          "row for row the list's pages, in their order"
        )
        const newestFirst = readCsv(yield* download("/dashboard/receivables.csv?status=PAID"))
        const paid = yield* sql<{ id: string }>`
        SELECT id FROM receivables WHERE org_id = ${fixture.orgA} AND status = 'PAID' ORDER BY detected_at DESC, id DESC`
        assert.deepStrictEqual(
          newestFirst.map((row) => row.id),
          paid.map((row) => row.id),
          "no sort chosen: newest first, as the list"
        )

        // A search with "changed since" as the list reads it: the bulk rows changed two days ago.
        const since = DateTime.formatIso(DateTime.subtract(yield* DateTime.now, { hours: 24 }))
        const searched = `?q=${encodeURIComponent("BULK-00")}&verified_since=${encodeURIComponent(since)}`
        const searchedList = yield* run(() => client.get(`/dashboard/receivables${searched}`))
        assert.deepStrictEqual(
          readCsv(yield* download(`/dashboard/receivables.csv${searched}`)).map((row) => row.id),
          idsOn(searchedList.body)
        )
        assert.isBelow(idsOn(searchedList.body).length, 8, "fewer than the search finds unfiltered")

        const byId = new Map(rows.map((row) => [row.id, row]))
        const money = (n: number) => [byId.get(bulk(n))?.amount, byId.get(bulk(n))?.currency]
        assert.deepStrictEqual(money(1), ["1234.50", "EUR"])
        assert.deepStrictEqual(money(2), ["-0.05", "EUR"], "a credit is a number, not guarded as a formula")
        assert.deepStrictEqual(money(3), ["1234", "JPY"], "in the currency's own digits")
        assert.deepStrictEqual(money(5), ["5.00", "EUR"])
        assert.notProperty(rows[0], "amount_cents")
        assert.notProperty(rows[0], "metadata", "metadata only when asked for")

        const withMetadata = readCsv(yield* download("/dashboard/receivables.csv?q=BULK-000&metadata=1"))
        assert.strictEqual(withMetadata.length, 8, "BULK-0001 to BULK-0009 but 50%_OFF")
        const described = withMetadata.find((row) => row.id === bulk(4))
        assert.deepStrictEqual(JSON.parse(described?.metadata ?? ""), metadata)
        assert.deepStrictEqual(JSON.parse(withMetadata.find((row) => row.id === bulk(5))?.metadata ?? ""), {})
        assert.strictEqual((yield* run(() => client.get("/dashboard/receivables.csv?metadata=yes"))).status, 400)
        assert.strictEqual((yield* run(() => client.get("/dashboard/receivables.csv?sort=vendor"))).status, 400)
      })
  )
})
