/**
 * The audit page over a real socket: an admin reads the organization's API requests (filtered by
 * key, status class, path, time and request id, a page of 50 at a time, newest first) and the
 * dashboard's actions (their own page: `dashboard-audit-actions.test.ts`); a member gets no link and a 403; and whatever a user of organization A
 * asks, no answer shows organization B's entries (a property over generated filters).
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { AccountsLive } from "../../app/Layers.ts"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { readCsv } from "../support/CsvReader.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import { type Fixture, keys as fixtureKeys, insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/DashboardAuditFixture") {}

const TestLayer = Layer.mergeAll(
  serverLayer({ dashboard: true }),
  AccountsLive,
  Layer.effect(TestFixture, insertFixture)
).pipe(Layer.provideMerge(TestDatabase.layer))

/** An API request with the key; its request id, as the answer names it. */
const apiRequest = (base: string, key: string, path: string) =>
  run(() =>
    fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } }).then(async (response) => {
      await response.arrayBuffer()
      return response.headers.get("request-id") ?? ""
    })
  )

/** The request ids the page's request table shows, in its order. */
const shownRequests = (body: string) => {
  const table = body.slice(body.indexOf('id="requests-heading"'))
  return [...table.matchAll(/>(req_[0-9a-z_]+)</g)].map((match) => match[1]!)
}

const olderLink = (body: string) =>
  /<a href="([^"]+)" rel="next">Older requests<\/a>/.exec(body)?.[1]?.replaceAll("&amp;", "&")

const newerLink = (body: string) =>
  /<a href="([^"]+)" rel="prev">Newer requests<\/a>/.exec(body)?.[1]?.replaceAll("&amp;", "&")

/** Requests of both organizations, made once for the whole file. */
const setup = Effect.runSync(
  Effect.cached(
    Effect.gen(function* () {
      const fixture = yield* TestFixture
      const base = yield* BaseUrl
      const sql = yield* SqlClient.SqlClient
      const list = yield* apiRequest(base, fixtureKeys.orgA, "/v1/receivables")
      const missing = yield* apiRequest(base, fixtureKeys.orgA, "/v1/receivables/rcv_00000000000000000000000000000fff")
      const otherOrg = yield* apiRequest(base, fixtureKeys.orgB, "/v1/receivables")
      const [keyA] = yield* sql<{ id: string }>`
      SELECT id FROM api_keys WHERE org_id = ${fixture.orgA} AND revoked_at IS NULL`
      const [keyB] = yield* sql<{ id: string }>`SELECT id FROM api_keys WHERE org_id = ${fixture.orgB}`
      return { fixture, base, sql, list, missing, otherOrg, keyA: keyA!.id, keyB: keyB!.id }
    })
  )
)

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard's audit page over HTTP", (it) => {
  it.effect("an admin sees the organization's requests, newest first, and its dashboard actions, no key's secret", () =>
    Effect.gen(function* () {
      const { fixture, base, list, missing, otherOrg } = yield* setup
      const { client } = yield* signedIn(base, fixture.orgA, "admin")
      const overview = yield* run(() => client.get("/dashboard/overview"))
      assert.include(overview.body, 'href="/dashboard/audit"')
      const page = yield* run(() => client.get("/dashboard/audit"))
      assert.strictEqual(page.status, 200)
      const shown = shownRequests(page.body)
      assert.includeMembers(shown, [list, missing])
      assert.isBelow(shown.indexOf(missing), shown.indexOf(list), "newest first")
      assert.notInclude(shown, otherOrg)
      for (const key of Object.values(fixtureKeys)) assert.notInclude(page.body, key)
      assert.include(page.body, 'href="/dashboard/audit/actions"')
      const actions = (yield* run(() => client.get("/dashboard/audit/actions"))).body
      assert.match(
        actions,
        /<td[^>]*>admin-\d+@example\.com<\/td><td[^>]*>invite accepted<\/td>/,
        "the user by address"
      )
    })
  )

  it.effect("the filters narrow the requests: status class, path, key, request id and time", () =>
    Effect.gen(function* () {
      const { fixture, base, list, missing, keyA } = yield* setup
      const { client } = yield* signedIn(base, fixture.orgA, "admin")
      const shown = (query: string) =>
        Effect.map(
          run(() => client.get(`/dashboard/audit?${query}`)),
          (answer) => {
            assert.strictEqual(answer.status, 200, query)
            return shownRequests(answer.body)
          }
        )
      const failed = yield* shown("status=4xx")
      assert.include(failed, missing)
      assert.notInclude(failed, list)
      const exact = yield* shown("path=%2Fv1%2Freceivables&match=exact")
      assert.include(exact, list)
      assert.notInclude(exact, missing)
      assert.includeMembers(yield* shown("path=%2Fv1%2Freceivables&match=prefix"), [list, missing])
      assert.includeMembers(yield* shown(`key=${keyA}`), [list, missing])
      assert.deepStrictEqual(yield* shown(`request_id=${missing}`), [missing])
      assert.deepStrictEqual(yield* shown("to=2020-01-01T00:00"), [])
      assert.includeMembers(yield* shown("from=2020-01-01T00:00"), [list, missing])
      const refused = yield* run(() => client.get("/dashboard/audit?from=yesterday"))
      assert.strictEqual(refused.status, 400)
      assert.include(refused.body, "“From” is not a date and time")
    })
  )

  it.effect("the requests come 50 to a page, each page older than the last, every one once", () =>
    Effect.gen(function* () {
      const { fixture, base, sql } = yield* setup
      // 120 requests within the last hour, some at the same instant.
      yield* sql`
        INSERT INTO audit_log (at, request_id, key_id, org_id, method, path, query, status, duration_ms, client_address)
        SELECT date_trunc('second', now()) - (n / 2) * interval '1 second', 'req_page_' || n, NULL, ${fixture.orgA},
          'GET', '/v1/paging-probe', '', 200, 1, NULL
        FROM generate_series(1, 120) n`
      const { client } = yield* signedIn(base, fixture.orgA, "admin")
      const pages: Array<ReadonlyArray<string>> = []
      let next: string | undefined = "/dashboard/audit?path=%2Fv1%2Fpaging-probe"
      while (next !== undefined) {
        const answer = yield* run(() => client.get(next!))
        assert.strictEqual(answer.status, 200)
        pages.push(shownRequests(answer.body))
        next = olderLink(answer.body)
      }
      assert.deepStrictEqual(
        pages.map((shown) => shown.length),
        [50, 50, 20]
      )
      // Newest first; of the same second, the later stored (larger n is older, so ids run 1, 2, ...).
      const expected = Array.from({ length: 120 }, (_, i) => `req_page_${i + 1}`).sort(
        (a, b) =>
          Math.floor(Number(a.slice(9)) / 2) - Math.floor(Number(b.slice(9)) / 2) ||
          Number(b.slice(9)) - Number(a.slice(9))
      )
      assert.deepStrictEqual(pages.flat(), expected)
    })
  )

  it.effect("regression: from the oldest page, newer pages lead back through the same pages", () =>
    Effect.gen(function* () {
      const { fixture, base, sql } = yield* setup
      yield* sql`
        INSERT INTO audit_log (at, request_id, key_id, org_id, method, path, query, status, duration_ms, client_address)
        SELECT date_trunc('second', now()) - (n / 2) * interval '1 second', 'req_back_' || n, NULL, ${fixture.orgA},
          'GET', '/v1/paging-back', '', 200, 1, NULL
        FROM generate_series(1, 120) n`
      const { client } = yield* signedIn(base, fixture.orgA, "admin")
      const walk = (first: string, link: (body: string) => string | undefined) =>
        Effect.gen(function* () {
          const pages: Array<ReadonlyArray<string>> = []
          let at: string | undefined = first
          // Bounded: three pages are expected, ten would be a loop.
          while (at !== undefined && pages.length < 10) {
            const answer = yield* run(() => client.get(at!))
            assert.strictEqual(answer.status, 200)
            pages.push(shownRequests(answer.body))
            const following = link(answer.body)
            if (following === undefined) return { pages, last: at }
            at = following
          }
          return { pages, last: at }
        })
      const first = yield* run(() => client.get("/dashboard/audit?path=%2Fv1%2Fpaging-back"))
      assert.isUndefined(newerLink(first.body), "the newest page has no newer one")
      const older = yield* walk("/dashboard/audit?path=%2Fv1%2Fpaging-back", olderLink)
      assert.deepStrictEqual(
        older.pages.map((shown) => shown.length),
        [50, 50, 20]
      )
      const oldest = yield* run(() => client.get(older.last!))
      const back = yield* walk(newerLink(oldest.body)!, newerLink)
      assert.deepStrictEqual(back.pages, older.pages.slice(0, 2).toReversed())
      assert.strictEqual(
        (yield* run(() =>
          client.get("/dashboard/audit?before_at=2026-11-01T00:00Z&before_seq=1&after_at=2026-11-01T00:00Z&after_seq=1")
        )).status,
        400
      )
    })
  )

  it.effect("a member sees no link to the audit log and is refused it (403)", () =>
    Effect.gen(function* () {
      const { fixture, base, list } = yield* setup
      const { client } = yield* signedIn(base, fixture.orgA, "member")
      const overview = yield* run(() => client.get("/dashboard/overview"))
      assert.notInclude(overview.body, "/dashboard/audit")
      for (const path of ["/dashboard/audit", `/dashboard/audit?request_id=${list}`]) {
        const answer = yield* run(() => client.get(path))
        assert.strictEqual(answer.status, 403)
        assert.include(answer.body, "Only an admin of your organization can read the audit log.")
        assert.deepStrictEqual(shownRequests(answer.body), [])
      }
    })
  )

  it.effect("whatever an admin of organization A filters by, no answer shows organization B's requests", () =>
    Effect.gen(function* () {
      const { fixture, base, sql, otherOrg, keyB } = yield* setup
      const { client } = yield* signedIn(base, fixture.orgA, "admin")
      const ofB = (yield* sql<{ request_id: string }>`
        SELECT request_id FROM audit_log WHERE org_id = ${fixture.orgB}`).map((row) => row.request_id)
      assert.include(ofB, otherOrg)
      const filter = fc.record(
        {
          key: fc.constantFrom("", keyB, keyB.toUpperCase()),
          status: fc.constantFrom("", "2xx", "4xx"),
          path: fc.constantFrom("", "/v1/receivables", "/v1"),
          match: fc.constantFrom("exact", "prefix"),
          request_id: fc.constantFrom("", otherOrg),
          from: fc.constantFrom("", "2020-01-01T00:00")
        },
        { requiredKeys: [] }
      )
      yield* run(() =>
        fc.assert(
          fc.asyncProperty(filter, async (fields) => {
            const query = new URLSearchParams(Object.entries(fields).filter(([, value]) => value !== undefined))
            const answer = await client.get(`/dashboard/audit?${query}`)
            assert.strictEqual(answer.status, 200)
            // The search field shows back what was typed; the table never shows B's requests.
            const shown = shownRequests(answer.body)
            for (const id of ofB) assert.notInclude(shown, id)
            assert.notInclude(answer.body, fixtureKeys.orgB)
          }),
          { numRuns: 30 }
        )
      )
    })
  )
  // Last in the file: it adds a key to organization A.
  it.effect("the requests CSV tells two keys of one name apart by their ids", () =>
    Effect.gen(function* () {
      const { fixture, base, sql, keyA } = yield* setup
      const second = makeApiKey("pr", new Uint8Array(secretBytes).fill(9))
      const [added] = yield* sql<{ id: string }>`
        INSERT INTO api_keys (org_id, key_hash, display_start, name)
        VALUES (${fixture.orgA}, sha256(convert_to(${second}, 'UTF8')), 'pr_live_tw', 'nightly export')
        RETURNING id`
      yield* sql`UPDATE api_keys SET name = 'nightly export' WHERE id = ${keyA}`
      const byFirst = yield* apiRequest(base, fixtureKeys.orgA, "/v1/vendors?limit=7")
      const bySecond = yield* apiRequest(base, second, "/v1/vendors?limit=7")
      const { client } = yield* signedIn(base, fixture.orgA, "admin")
      const answer = yield* run(() => client.get("/dashboard/audit/requests.csv?path=/v1/vendors&match=exact"))
      const rows = readCsv(answer.body).filter((row) => row.query === "limit=7")
      assert.deepStrictEqual(
        rows.map((row) => [row.request_id, row.key, row.key_id]).sort(),
        [
          [byFirst, "nightly export", keyA],
          [bySecond, "nightly export", added!.id]
        ].sort()
      )
      assert.notInclude(answer.body, second, "the key's id, never the key")
    })
  )
})
