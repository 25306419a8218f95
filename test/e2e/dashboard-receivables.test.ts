/**
 * The dashboard's receivable pages over a real socket: the list with the API's filters (each
 * narrowing to what the database holds), values the API would refuse, keyset paging walked
 * through every page with and without a filter, and one receivable with its history newest first
 * and its metadata. Another organization's receivable is not found.
 */
import { assert, layer } from "@effect/vitest"
import { Context, DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../app/Layers.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import { type Fixture, insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/DashboardReceivablesFixture") {}

/** Org A's fixture, and 120 more of its receivables from one more pair, updated two days ago. */
const seeded = Effect.gen(function* () {
  const fixture = yield* insertFixture
  const sql = yield* SqlClient.SqlClient
  const [vendor] = yield* sql<{ id: string }>`
    INSERT INTO vendors (org_id, name) VALUES (${fixture.orgA}, 'Bulk Vendor') RETURNING id`
  const [pair] = yield* sql<{ id: string }>`
    INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at)
    VALUES (${fixture.orgA}, ${vendor!.id}, ${fixture.debtor2}, 'simulator', now() + interval '1 hour') RETURNING id`
  yield* sql`
    INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents, currency,
      receivable_date, status, portal_status, metadata, detected_at, updated_at)
    SELECT ${fixture.orgA}, 'rcv_' || lpad(to_hex(5000 + n), 32, '0'), ${pair!.id}, ${vendor!.id}, ${fixture.debtor2},
      'bulk-' || n, n * 100, 'EUR', '2026-10-01', 'PAID', 'Paid', '{}'::jsonb,
      now() - interval '100 hours' + n * interval '1 second', now() - interval '48 hours'
    FROM generate_series(1, 120) AS n`
  return { ...fixture, bulkVendor: vendor!.id }
})

class Seeded extends Context.Service<Seeded, Effect.Success<typeof seeded>>()("test/DashboardReceivablesSeeded") {}

const TestLayer = Layer.mergeAll(serverLayer({ dashboard: true }), AccountsLive, Layer.effect(Seeded, seeded)).pipe(
  Layer.provideMerge(TestDatabase.layer)
)

const idsOn = (body: string) =>
  [...body.matchAll(/href="\/dashboard\/receivables\/(rcv_[0-9a-f]{32})"/g)].map((m) => m[1]!)
const nextOf = (body: string) => /href="([^"]+)" rel="next"/.exec(body)?.[1]?.replaceAll("&amp;", "&")

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard's receivables over HTTP", (it) => {
  it.effect("each filter lists exactly the organization's receivables that match it", () =>
    Effect.gen(function* () {
      const fixture = yield* Seeded
      const base = yield* BaseUrl
      const sql = yield* SqlClient.SqlClient
      const { client } = yield* signedIn(base, fixture.orgA, "member")
      const since = DateTime.formatIso(DateTime.subtract(yield* DateTime.now, { hours: 24 }))
      const cases: ReadonlyArray<
        readonly [string, (row: { vendor_id: string; debtor_id: string; status: string; fresh: boolean }) => boolean]
      > = [
        [`status=PENDING`, (row) => row.status === "PENDING"],
        [`vendor=${fixture.vendorA2}`, (row) => row.vendor_id === fixture.vendorA2],
        [
          `debtor=${fixture.debtor1}&status=APPROVED`,
          (row) => row.debtor_id === fixture.debtor1 && row.status === "APPROVED"
        ],
        [`verified_since=${encodeURIComponent(since)}`, (row) => row.fresh]
      ]
      const rows = yield* sql<{ id: string; vendor_id: string; debtor_id: string; status: string; fresh: boolean }>`
        SELECT id, vendor_id, debtor_id, status, updated_at >= ${since}::timestamptz AS fresh
        FROM receivables WHERE org_id = ${fixture.orgA} ORDER BY detected_at, id`
      for (const [query, matches] of cases) {
        const page = yield* run(() => client.get(`/dashboard/receivables?${query}`))
        assert.strictEqual(page.status, 200, query)
        const expected = rows.filter(matches).map((row) => row.id)
        assert.isAbove(expected.length, 0, query)
        assert.isBelow(expected.length, 8, query)
        assert.deepStrictEqual(idsOn(page.body), expected, query)
        assert.include(page.body, `${expected.length} receivables match`, query)
      }
      // The form shows the filter it applied.
      const filtered = yield* run(() => client.get(`/dashboard/receivables?vendor=${fixture.vendorA2}`))
      assert.match(filtered.body, new RegExp(`<option value="${fixture.vendorA2}" selected>Beta Parts</option>`))
    })
  )

  it.effect("a filter the API would refuse is shown as the problem (400), not guessed at", () =>
    Effect.gen(function* () {
      const fixture = yield* Seeded
      const { client } = yield* signedIn(yield* BaseUrl, fixture.orgA, "member")
      for (const [query, problem] of [
        ["status=LOST", "not one of the six statuses"],
        ["verified_since=yesterday", "neither a date"],
        ["vendor=acme", "not one of your vendors"],
        [`starting_after=rcv_${"f".repeat(32)}`, "not a receivable"]
      ] as const) {
        const page = yield* run(() => client.get(`/dashboard/receivables?${query}`))
        assert.strictEqual(page.status, 400, query)
        assert.match(page.body, new RegExp(`role="alert"><strong>[^<]*${problem}`), query)
        assert.deepStrictEqual(idsOn(page.body), [], query)
      }
    })
  )

  it.effect("following the next-page links walks every receivable once, in list order, with or without a filter", () =>
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
          ${vendor === undefined ? sql`` : sql`AND vendor_id = ${vendor}`} ORDER BY detected_at, id`).map(
          (row) => row.id
        )
        const seen: Array<string> = []
        let path: string | undefined = start
        let pages = 0
        while (path !== undefined) {
          const page = yield* run(() => client.get(path!))
          assert.strictEqual(page.status, 200, path)
          seen.push(...idsOn(page.body))
          if (pages > 0) assert.include(page.body, "First page")
          path = nextOf(page.body)
          pages++
        }
        assert.deepStrictEqual(seen, expected)
        assert.strictEqual(pages, Math.ceil(expected.length / 50))
      }
    })
  )

  it.effect("a receivable's page shows its history newest first and its metadata; another's is not found", () =>
    Effect.gen(function* () {
      const fixture = yield* Seeded
      const { client } = yield* signedIn(yield* BaseUrl, fixture.orgA, "member")
      const first = fixture.receivablesA[0]!
      const page = yield* run(() => client.get(`/dashboard/receivables/${first.id}`))
      assert.strictEqual(page.status, 200)
      const changes = [...page.body.matchAll(/<code>amount_cents<\/code>: (\d+) → (\d+)/g)].map((m) => [
        Number(m[1]),
        Number(m[2])
      ])
      assert.deepStrictEqual(
        changes,
        Array.from({ length: 12 }, (_, i) => [11 - i, 12 - i])
      )
      assert.match(page.body, /<dt><code>payment_terms<\/code><\/dt><dd>NET30<\/dd>/)
      assert.include(page.body, "Acme Supplies")
      assert.strictEqual((yield* run(() => client.get(`/dashboard/receivables/${fixture.receivableB}`))).status, 404)
      assert.strictEqual((yield* run(() => client.get("/dashboard/receivables/not-an-id"))).status, 404)
    })
  )
})
