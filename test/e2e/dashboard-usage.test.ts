/**
 * The Keys page's requests per day over a real socket: the last 30 UTC days, each day the sum of
 * the organization's keys (revoked ones too) by answer class, zeros where nothing happened,
 * nothing older and nothing of another organization. The chart itself is drawn in the browser
 * (`dashboard-browser.test.ts`); this checks the numbers the page gives it and its table.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../app/Layers.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import { type Fixture, insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/DashboardUsageFixture") {}

const TestLayer = Layer.mergeAll(
  serverLayer({ dashboard: true }),
  AccountsLive,
  Layer.effect(TestFixture, insertFixture)
).pipe(Layer.provideMerge(TestDatabase.layer))

/** The table's rows: day, 2xx/3xx, 4xx, 5xx. */
const tableRows = (body: string) =>
  [
    ...body.matchAll(
      /<th scope="row">(\d{4}-\d{2}-\d{2})<\/th><td class="number"[^>]*>(\d+)<\/td><td class="number"[^>]*>(\d+)<\/td><td class="number"[^>]*>(\d+)<\/td>/g
    )
  ].map((match) => [match[1]!, Number(match[2]), Number(match[3]), Number(match[4])] as const)

const dayOf = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10)

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the Keys page's requests per day", (it) => {
  it.effect("30 days, today last, summed over the organization's keys by class; nothing older, nothing of B", () =>
    Effect.gen(function* () {
      const fixture = yield* TestFixture
      const base = yield* BaseUrl
      const sql = yield* SqlClient.SqlClient
      // Org A's active and revoked keys, and org B's key, on days in and out of the window.
      yield* sql`
        INSERT INTO api_key_usage (key_id, org_id, day, requests_2xx, requests_4xx, requests_5xx)
        SELECT k.id, k.org_id, (now() AT TIME ZONE 'UTC')::date - d.ago, d.ok * k.weight, d.refused * k.weight, d.failed
        FROM (SELECT id, org_id, CASE WHEN revoked_at IS NULL THEN 1 ELSE 10 END AS weight FROM api_keys) k,
          (VALUES (0, 5, 2, 1), (3, 7, 0, 0), (29, 1, 1, 1), (30, 100, 100, 100)) AS d(ago, ok, refused, failed)
        WHERE k.org_id IN (${fixture.orgA}, ${fixture.orgB})
        ON CONFLICT (key_id, day) DO UPDATE SET requests_2xx = excluded.requests_2xx,
          requests_4xx = excluded.requests_4xx, requests_5xx = excluded.requests_5xx`
      const { client } = yield* signedIn(base, fixture.orgA, "member")
      const page = yield* run(() => client.get("/dashboard/keys"))
      assert.strictEqual(page.status, 200)
      assert.include(page.body, "Requests per day")
      // Only the chart's deferred script up front: it fetches uPlot from the chart's data once in view.
      assert.match(page.body, /<script src="\/dashboard\/assets\/usage-chart-[0-9a-f]{16}\.js" defer>/)
      assert.notMatch(page.body, /<(script|link)[^>]*uplot-/)
      assert.match(page.body, /data-script="\/dashboard\/assets\/uplot-[0-9a-f]{16}\.js"/)
      assert.match(page.body, /data-style="\/dashboard\/assets\/uplot-[0-9a-f]{16}\.css"/)
      const rows = tableRows(page.body)
      assert.strictEqual(rows.length, 30)
      assert.strictEqual(rows[0]![0], dayOf(29))
      assert.strictEqual(rows[29]![0], dayOf(0))
      // Per day: the active key once, the revoked key ten times (5xx once each); B's key never.
      const byDay = new Map(rows.map(([day, ...counts]) => [day, counts]))
      assert.deepStrictEqual(byDay.get(dayOf(0)), [55, 22, 2])
      assert.deepStrictEqual(byDay.get(dayOf(3)), [77, 0, 0])
      assert.deepStrictEqual(byDay.get(dayOf(29)), [11, 11, 2])
      assert.deepStrictEqual(byDay.get(dayOf(1)), [0, 0, 0])
      assert.isFalse(byDay.has(dayOf(30)))
      // The chart's data is the table's.
      const data = JSON.parse(
        (/data-usage="([^"]*)"/.exec(page.body)?.[1] ?? "[]").replaceAll("&quot;", '"').replaceAll("&amp;", "&")
      ) as ReadonlyArray<{ day: string; succeeded: number; clientErrors: number; serverErrors: number }>
      assert.deepStrictEqual(
        data.map((day) => [day.day, day.succeeded, day.clientErrors, day.serverErrors]),
        rows.map((row) => [...row])
      )
    })
  )
})
