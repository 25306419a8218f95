/**
 * The dashboard actions over a real socket: paged and filtered like the requests (64 failed
 * sign-ins no longer push a key's creation out of view), users, keys and pairs named, and both
 * audit views downloaded as CSV: streamed, every matching row, with a byte-order mark and
 * formula-looking cells made inert; members are refused (403); and the filtered receivables as CSV.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../app/Layers.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import { type Fixture, keys as fixtureKeys, insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/DashboardAuditActionsFixture") {}

const TestLayer = Layer.mergeAll(
  serverLayer({ dashboard: true }),
  AccountsLive,
  Layer.effect(TestFixture, insertFixture)
).pipe(Layer.provideMerge(TestDatabase.layer))

const setup = Effect.all({ fixture: Effect.service(TestFixture), base: Effect.service(BaseUrl) })

/** The "On" cells of the actions table, in order. */
const rowsOf = (body: string) =>
  [
    ...body.matchAll(
      /<tr><td[^>]*><time[^>]*>[^<]*<\/time><\/td><td[^>]*>([^<]*)<\/td><td[^>]*>([^<]*)<\/td><td[^>]*>([^<]*)<\/td>/g
    )
  ].map((m) => ({ user: m[1]!, action: m[2]!, on: m[3]! }))

const olderLink = (body: string) =>
  /<a href="([^"]+)" rel="next">Older actions<\/a>/.exec(body)?.[1]?.replaceAll("&amp;", "&")

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard actions", (it) => {
  it.effect("64 failed sign-ins later, a key's creation is on a later page and found by filter, named", () =>
    Effect.gen(function* () {
      const { base } = yield* setup
      const sql = yield* SqlClient.SqlClient
      const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Busy') RETURNING id`
      const { client, csrf } = yield* signedIn(base, org!.id, "admin")
      yield* run(() => client.post("/dashboard/keys", { csrf, name: "nightly export" }))
      const [admin] = yield* sql<{
        id: string
        email: string
      }>`SELECT id, email FROM dashboard_users WHERE org_id = ${org!.id}`
      // What an attacker leaves, from many addresses (the throttle records a few per address).
      yield* sql`
        INSERT INTO dashboard_audit (org_id, at, user_id, action, subject, client_address)
        SELECT ${org!.id}, now() + (n || ' milliseconds')::interval, ${admin!.id}, 'sign_in_failed', NULL,
          '198.51.100.' || n
        FROM generate_series(1, 64) AS n`
      const first = yield* run(() => client.get("/dashboard/audit/actions"))
      assert.strictEqual(first.status, 200)
      const seen = rowsOf(first.body)
      assert.strictEqual(seen.length, 50)
      const all = [...seen]
      let next = olderLink(first.body)
      while (next !== undefined) {
        const page = yield* run(() => client.get(next!))
        all.push(...rowsOf(page.body))
        next = olderLink(page.body)
      }
      const created = all.filter((row) => row.action === "key created")
      assert.strictEqual(created.length, 1, "reached by paging")
      assert.match(created[0]!.on, /^key “nightly export” \(pr_live_/, "the key by name")
      assert.strictEqual(created[0]!.user, admin!.email, "the user by address")

      const filtered = yield* run(() => client.get(`/dashboard/audit/actions?action=key_created&user=${admin!.id}`))
      assert.deepStrictEqual(
        rowsOf(filtered.body).map((row) => row.action),
        ["key created"]
      )
      assert.strictEqual((yield* run(() => client.get("/dashboard/audit/actions?action=nonsense"))).status, 400)
    })
  )

  it.effect("both views download as CSV: every row, streamed in pages, BOM, formulas made inert", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const sql = yield* SqlClient.SqlClient
      const { client } = yield* signedIn(base, fixture.orgA, "admin")
      const [admin] = yield* sql<{ id: string }>`
        SELECT id FROM dashboard_users WHERE org_id = ${fixture.orgA} ORDER BY created_at DESC LIMIT 1`
      // More than one page of the export (500 rows), one of them a formula.
      yield* sql`
        INSERT INTO dashboard_audit (org_id, at, user_id, action, subject, client_address)
        SELECT ${fixture.orgA}, now() - (n || ' seconds')::interval, ${admin!.id}, 'sign_out',
          CASE WHEN n = 7 THEN '=HYPERLINK("http://evil.example")' ELSE 'subject ' || n END, '192.0.2.1'
        FROM generate_series(1, 1200) AS n`
      const answer = yield* run(() =>
        fetch(`${base}/dashboard/audit/actions.csv?action=sign_out`, { headers: { cookie: client.cookie ?? "" } })
      )
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(answer.headers.get("content-type"), "text/csv; charset=utf-8")
      assert.match(answer.headers.get("content-disposition") ?? "", /^attachment; filename="dashboard-actions\.csv"$/)
      const bytes = new Uint8Array(yield* run(() => answer.arrayBuffer()))
      assert.deepStrictEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf], "a byte-order mark")
      const lines = new TextDecoder().decode(bytes.slice(3)).split("\r\n")
      assert.strictEqual(lines[0], "time,user,action,on,client_address")
      assert.strictEqual(lines.at(-1), "", "every line ends with CRLF")
      const rows = lines.slice(1, -1)
      assert.strictEqual(rows.length, 1200, "every row, across pages")
      assert.strictEqual(new Set(rows).size, 1200, "none twice")
      assert.isTrue(rows.every((row) => row.includes(",sign out,")))
      assert.isTrue(
        rows.some((row) => row.includes(`,"'=HYPERLINK(""http://evil.example"")",`)),
        "made inert"
      )

      for (let i = 0; i < 3; i++) {
        yield* run(() => fetch(`${base}/v1/vendors`, { headers: { authorization: `Bearer ${fixtureKeys.orgA}` } }))
      }
      const requests = yield* run(() =>
        fetch(`${base}/dashboard/audit/requests.csv?path=/v1/vendors&match=exact`, {
          headers: { cookie: client.cookie ?? "" }
        }).then((r) => r.text())
      )
      const requestLines = requests.replace(/^\uFEFF/, "").split("\r\n")
      assert.strictEqual(
        requestLines[0],
        "time,method,path,query,status,key,key_id,request_id,duration_ms,client_address"
      )
      assert.isAtLeast(requestLines.length - 2, 3)
      assert.isTrue(requestLines.slice(1, -1).every((line) => line.split(",")[2] === "/v1/vendors"))
      assert.notInclude(requests, fixtureKeys.orgA, "no key, only its name")
    })
  )

  it.effect("a member is refused the actions page and both downloads (403)", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const { client } = yield* signedIn(base, fixture.orgA, "member")
      for (const path of [
        "/dashboard/audit/actions",
        "/dashboard/audit/actions.csv",
        "/dashboard/audit/requests.csv"
      ]) {
        const answer = yield* run(() => client.get(path))
        assert.strictEqual(answer.status, 403, path)
        assert.notInclude(answer.body, "sign_in")
      }
    })
  )
  it.effect("the filtered receivables download as CSV: every match, in chunks, in the list's order, none of B", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const sql = yield* SqlClient.SqlClient
      const { client } = yield* signedIn(base, fixture.orgA, "member")
      yield* sql`
        INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents,
          currency, receivable_date, status, portal_status, metadata, detected_at, updated_at)
        SELECT r.org_id, 'rcv_' || lpad(to_hex(50000 + n), 32, '0'), r.integration_id, r.vendor_id, r.debtor_id,
          'export-' || n, n, 'EUR', '2026-10-01', 'SOLD', CASE WHEN n = 3 THEN '@SUM(A1)' ELSE 'Sold' END, '{}'::jsonb,
          now() - interval '100 hours' + n * interval '1 second', now()
        FROM (SELECT * FROM receivables WHERE id = ${fixture.receivablesA[0]!.id}) r, generate_series(1, 1100) AS n`
      const [expected] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM receivables WHERE org_id = ${fixture.orgA} AND status = 'SOLD'`
      const text = yield* run(() =>
        fetch(`${base}/dashboard/receivables.csv?status=SOLD`, { headers: { cookie: client.cookie ?? "" } }).then((r) =>
          r.text()
        )
      )
      const lines = text
        .replace(/^\uFEFF/, "")
        .split("\r\n")
        .slice(0, -1)
      assert.match(lines[0]!, /^id,vendor_receivable_id,vendor,debtor,status,portal_status,amount,currency,/)
      const rows = lines.slice(1)
      assert.strictEqual(rows.length, expected!.n, "every match, across chunks")
      const ids = rows.map((row) => row.split(",")[0]!)
      assert.strictEqual(new Set(ids).size, ids.length, "none twice")
      assert.isTrue(rows.every((row) => row.split(",")[4] === "SOLD"))
      assert.include(text, ",'@SUM(A1),", "made inert")
      const bIds = yield* sql<{ id: string }>`SELECT id FROM receivables WHERE org_id = ${fixture.orgB}`
      for (const { id } of bIds) assert.notInclude(text, id)
      const page = yield* run(() => client.get("/dashboard/receivables?status=SOLD"))
      assert.include(page.body, 'href="/dashboard/receivables.csv?status=SOLD"')
      assert.strictEqual((yield* run(() => client.get("/dashboard/receivables.csv?status=NOPE"))).status, 400)
    })
  )
})
