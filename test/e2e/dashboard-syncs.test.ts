/**
 * The dashboard's pages of an organization's data over a real socket: the overview (receivables
 * by status, failing pairs, next updates), the pairs with their runs, pausing and resuming a pair
 * (admins only, audited, and seen by the API), the receivables with the API's filters and keyset
 * paging, one receivable's history, and organizations kept apart (a property over generated
 * requests). The browser's view is `dashboard-browser.test.ts`.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { AccountsLive } from "../../app/Layers.ts"
import { consumerMessages } from "../../core/receivables/domain/RunError.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import { type Fixture, keys as fixtureKeys, insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/DashboardSyncsFixture") {}

const TestLayer = Layer.mergeAll(
  serverLayer({ dashboard: true }),
  AccountsLive,
  Layer.effect(TestFixture, insertFixture)
).pipe(Layer.provideMerge(TestDatabase.layer))

interface PairRow {
  readonly id: string
  readonly org_id: string
  readonly name: string
}

/** The fixture's pairs, named as the pages name them, and one failed run on Acme → Initech. */
const setup = Effect.gen(function* () {
  const fixture = yield* TestFixture
  const base = yield* BaseUrl
  const sql = yield* SqlClient.SqlClient
  const pairs = yield* sql<PairRow>`
    SELECT i.id, i.org_id, v.name || ' → ' || d.name AS name
    FROM integrations i JOIN vendors v ON v.id = i.vendor_id JOIN debtors d ON d.id = i.debtor_id`
  const pair = (name: string) => pairs.find((row) => row.name === name)!
  const failing = pair("Acme Supplies → Initech")
  const [failed] = yield* sql<{ n: number }>`
    SELECT count(*)::int AS n FROM sync_runs WHERE integration_id = ${failing.id}`
  if (failed!.n === 0) {
    yield* sql`
      INSERT INTO sync_runs (org_id, integration_id, worker, started_at, finished_at, outcome, fetched, created,
        updated, unchanged, quarantined, error)
      VALUES
        (${fixture.orgA}, ${failing.id}, 'w1', now() - interval '2 hours', now() - interval '2 hours', 'succeeded',
          9, 4, 3, 1, 1, NULL),
        (${fixture.orgA}, ${failing.id}, 'w1', now() - interval '1 hour', now() - interval '1 hour', 'failed',
          0, 0, 0, 0, 0, 'the portal answered 503')`
    yield* sql`UPDATE integrations SET last_outcome = 'failed', consecutive_failures = 1 WHERE id = ${failing.id}`
  }
  return { fixture, base, sql, pairs, pair }
})

/** The text of a page's section, from its heading to the next one. */
const section = (body: string, heading: string) => {
  const start = body.indexOf(`>${heading}</h2>`)
  assert.isAbove(start, -1, `the page has a "${heading}" section`)
  const end = body.indexOf("<h2", start)
  return body.slice(start, end === -1 ? undefined : end)
}

/** A status's row of the overview's totals (the fixture's receivables are all in EUR): count and amount. */
const statusTotal = (body: string, status: string) => {
  const found = new RegExp(
    `status=${status}"><span class="badge status-[a-z]+">${status}</span></a></th><td[^>]*>EUR</td><td class="number"[^>]*>(\\d+)</td><td class="number"[^>]*><span class="money">([^<]+)</span>`
  ).exec(body)
  return [Number(found?.[1] ?? Number.NaN), found?.[2]] as const
}

const badgeOf = (html: string) => /<span class="badge state-([a-z]+)">/.exec(html)?.[1]
const stateOf = (body: string) => badgeOf(/<dt>State<\/dt><dd>(.*?)<\/dd>/.exec(body)?.[1] ?? "")

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard's data pages over HTTP", (it) => {
  it.effect(
    "the overview leads with what needs attention, then amounts per status and currency, then the next updates",
    () =>
      Effect.gen(function* () {
        const { fixture, base } = yield* setup
        const { client } = yield* signedIn(base, fixture.orgA, "member")
        const overview = yield* run(() => client.get("/dashboard/overview"))
        assert.strictEqual(overview.status, 200)
        const totals = ["PENDING", "APPROVED", "PAID", "SOLD", "DISPUTED", "ACKNOWLEDGED"].map((status) => [
          status,
          ...statusTotal(overview.body, status)
        ])
        // INV-n is worth n × 1,000 EUR: PENDING are INV-2 and INV-8, APPROVED INV-3 and INV-9.
        assert.deepStrictEqual(totals, [
          ["PENDING", 2, "EUR\u00a010,000.00"],
          ["APPROVED", 2, "EUR\u00a012,000.00"],
          ["PAID", 1, "EUR\u00a04,000.00"],
          ["SOLD", 1, "EUR\u00a06,000.00"],
          ["DISPUTED", 1, "EUR\u00a05,000.00"],
          ["ACKNOWLEDGED", 1, "EUR\u00a07,000.00"]
        ])
        // Needs attention comes first: the failing pair, then the paused one; the healthy pair is not named.
        assert.isBelow(
          overview.body.indexOf(">Needs attention</h2>"),
          overview.body.indexOf(">Receivables by status</h2>")
        )
        const attention = section(overview.body, "Needs attention")
        const items = [
          ...attention.matchAll(/<li><span class="badge state-([a-z]+)">[a-z]+<\/span> <a [^>]+>([^<]+)<\/a>/g)
        ].map((m) => [m[1], m[2]])
        assert.deepStrictEqual(items, [
          ["failing", "Acme Supplies → Initech"],
          ["paused", "Beta Parts → Globex"]
        ])
        // The organization's people are told the failure's class, as API clients are; the detail is the operators'.
        assert.include(attention, consumerMessages.portal_error)
        assert.notInclude(attention, "the portal answered 503")
        const next = section(overview.body, "Next updates")
        assert.include(next, "Acme Supplies → Globex")
        assert.notInclude(next, "Beta Parts → Globex", "a paused pair has no next update")
        assert.notInclude(overview.body, "Other Org Vendor")
        // `/dashboard` is the overview.
        assert.strictEqual((yield* run(() => client.get("/dashboard"))).headers.get("location"), "/dashboard/overview")
      })
  )

  it.effect(
    "the integrations page shows each pair's state and last run; a pair's page shows its runs with counts",
    () =>
      Effect.gen(function* () {
        const { fixture, base, pair } = yield* setup
        const { client } = yield* signedIn(base, fixture.orgA, "member")
        const list = yield* run(() => client.get("/dashboard/integrations"))
        assert.strictEqual(list.status, 200)
        const rowOf = (name: string) =>
          list.body.slice(list.body.indexOf(name), list.body.indexOf("</tr>", list.body.indexOf(name)))
        assert.strictEqual(badgeOf(rowOf("Acme Supplies → Initech")), "failing")
        assert.strictEqual(badgeOf(rowOf("Beta Parts → Globex")), "paused")
        assert.strictEqual(badgeOf(rowOf("Acme Supplies → Globex")), "active")
        assert.notInclude(list.body, "Other Org Vendor")

        const detail = yield* run(() => client.get(`/dashboard/integrations/${pair("Acme Supplies → Initech").id}`))
        assert.strictEqual(detail.status, 200)
        assert.strictEqual(stateOf(detail.body), "failing")
        // Each run's outcome, its documents (fetched, then what they came to) and its error.
        const rows = [...section(detail.body, "Sync history").matchAll(/<tr><th scope="row">.*?<\/tr>/g)].map((m) =>
          [...m[0].matchAll(/<td[^>]*>(.*?)<\/td>/g)].map(
            (cell) =>
              badgeOf(cell[1]!) ??
              cell[1]!
                .replace(/<[^>]*>/g, " ")
                .replace(/\s+/g, " ")
                .trim()
          )
        )
        assert.deepStrictEqual(rows, [
          [
            "failed",
            "0 documents fetched 0 created, 0 updated, 0 unchanged, 0 quarantined",
            consumerMessages.portal_error
          ],
          ["succeeded", "9 documents fetched 4 created, 3 updated, 1 unchanged, 1 quarantined", ""]
        ])
        assert.notInclude(detail.body, "Pause syncing", "a member has no pause button")
      })
  )

  it.effect("a pair's page shows the documents its runs quarantined with their reasons, the first 20 of all", () =>
    Effect.gen(function* () {
      const { fixture, base, sql, pair } = yield* setup
      const id = pair("Acme Supplies → Globex").id
      // As the sync records them: 25 documents kept with their reasons, of 30 quarantined.
      const kept = Array.from({ length: 25 }, (_, n) => ({
        documentKey: `INV-Q${n + 1}`,
        reasons: n === 0 ? ["amount is not a number", "<b>no due date</b>"] : ["unknown currency"]
      }))
      yield* sql`
        INSERT INTO sync_runs (org_id, integration_id, worker, started_at, finished_at, outcome, fetched, quarantined,
          quarantine)
        VALUES (${fixture.orgA}, ${id}, 'w1', now() - interval '3 hours', now() - interval '3 hours', 'succeeded', 30,
          30, ${JSON.stringify(kept)}::jsonb)`
      const { client } = yield* signedIn(base, fixture.orgA, "member")
      const detail = yield* run(() => client.get(`/dashboard/integrations/${id}`))
      assert.strictEqual(detail.status, 200)
      const quarantine = section(detail.body, "Quarantined documents")
      assert.include(quarantine, "20 of 30 quarantined documents")
      const shown = [...quarantine.matchAll(/>(INV-Q\d+)</g)].map((match) => match[1])
      assert.deepStrictEqual(
        shown,
        Array.from({ length: 20 }, (_, n) => `INV-Q${n + 1}`)
      )
      assert.include(quarantine, "amount is not a number; &lt;b>no due date&lt;/b>")
      assert.include(quarantine, "unknown currency")
    })
  )

  it.effect("an admin pauses and resumes a pair: the API shows it, and dashboard_audit names the user", () =>
    Effect.gen(function* () {
      const { fixture, base, sql, pair } = yield* setup
      const { client, csrf } = yield* signedIn(base, fixture.orgA, "admin")
      const id = pair("Acme Supplies → Globex").id
      const apiState = () =>
        run(() =>
          fetch(`${base}/v1/integrations`, { headers: { authorization: `Bearer ${fixtureKeys.orgA}` } }).then(
            async (response) =>
              ((await response.json()) as { data: ReadonlyArray<{ id: string; state: string }> }).data.find(
                (integration) => integration.id === id
              )?.state
          )
        )
      const page = yield* run(() => client.get(`/dashboard/integrations/${id}`))
      assert.include(page.body, "Pause syncing")
      const paused = yield* run(() => client.post(`/dashboard/integrations/${id}/pause`, { csrf }))
      assert.strictEqual(paused.status, 303)
      const after = yield* run(() => client.get(paused.headers.get("location") ?? ""))
      assert.strictEqual(stateOf(after.body), "paused")
      assert.include(after.body, "Paused: the pair is not synced until it is resumed.")
      assert.include(after.body, "Resume syncing")
      assert.strictEqual(yield* apiState(), "paused")

      const resumed = yield* run(() => client.post(`/dashboard/integrations/${id}/resume`, { csrf }))
      assert.strictEqual(resumed.status, 303)
      assert.strictEqual(stateOf((yield* run(() => client.get(resumed.headers.get("location") ?? ""))).body), "active")
      assert.strictEqual(yield* apiState(), "active")

      const audited = yield* sql<{ action: string; email: string }>`
        SELECT a.action, u.email FROM dashboard_audit a JOIN dashboard_users u ON u.id = a.user_id
        WHERE a.org_id = ${fixture.orgA} AND a.subject = ${id} ORDER BY a.id`
      const [user] = yield* sql<{ email: string }>`
        SELECT u.email FROM dashboard_sessions s JOIN dashboard_users u ON u.id = s.user_id
        ORDER BY s.created_at DESC LIMIT 1`
      assert.deepStrictEqual(audited, [
        { action: "integration_paused", email: user!.email },
        { action: "integration_resumed", email: user!.email }
      ])
    })
  )

  it.effect(
    "'Sync now' runs an admin's sync, refuses one too soon or before the portal's Retry-After with the reason, and a member's (403)",
    () =>
      Effect.gen(function* () {
        const { fixture, base, sql, pair } = yield* setup
        const id = pair("Acme Supplies → Initech").id
        const runsOf = () =>
          Effect.map(
            sql<{ n: number }>`SELECT count(*)::int AS n FROM sync_runs WHERE integration_id = ${id}`,
            (rows) => rows[0]!.n
          )
        const member = yield* signedIn(base, fixture.orgA, "member")
        const refused = yield* run(() =>
          member.client.post(`/dashboard/integrations/${id}/sync`, { csrf: member.csrf })
        )
        assert.strictEqual(refused.status, 403)
        assert.notInclude((yield* run(() => member.client.get(`/dashboard/integrations/${id}`))).body, "Sync now")

        const { client, csrf } = yield* signedIn(base, fixture.orgA, "admin")
        assert.include((yield* run(() => client.get(`/dashboard/integrations/${id}`))).body, "Sync now")
        const before = yield* runsOf()
        const synced = yield* run(() => client.post(`/dashboard/integrations/${id}/sync`, { csrf }))
        assert.strictEqual(synced.status, 303)
        assert.match(synced.headers.get("location") ?? "", new RegExp(`/dashboard/integrations/${id}\\?changed=sync`))
        const after = yield* run(() => client.get(synced.headers.get("location") ?? ""))
        assert.match(after.body, /role="status">(Synced|The sync ran and failed)/)
        assert.strictEqual(yield* runsOf(), before + 1)

        // At once again: within MANUAL_SYNC_MIN_SECONDS (60) of that run, refused with when it may run.
        const tooSoon = yield* run(() => client.post(`/dashboard/integrations/${id}/sync`, { csrf }))
        assert.strictEqual(tooSoon.status, 409)
        // In the reader's terms: no identifier, setting or raw instant, but when to try again.
        assert.match(
          tooSoon.body,
          /role="alert"><strong>Not synced: this pair synced too recently to sync again yet\. Try again <time datetime="[^"]+"/
        )
        for (const developerWord of [id, "MANUAL_SYNC_MIN_SECONDS", "integration "])
          assert.notInclude(tooSoon.body.slice(tooSoon.body.indexOf('role="alert"')).split("</p>")[0], developerWord)
        assert.strictEqual(yield* runsOf(), before + 1)

        // The portal asked for a pause on its last run: refused until then, whatever the interval says.
        yield* sql`
        INSERT INTO sync_runs (org_id, integration_id, worker, started_at, finished_at, outcome, error, portal_retry_at)
        VALUES (${fixture.orgA}, ${id}, 'w1', now(), now(), 'failed',
          'the portal answered 429', now() + interval '1 hour')`
        const portal = yield* run(() => client.post(`/dashboard/integrations/${id}/sync`, { csrf }))
        assert.strictEqual(portal.status, 409)
        assert.match(portal.body, /Not synced: the pair's portal asked to be left alone for a while\. Try again <time/)

        const audited = yield* sql<{ action: string }>`
        SELECT action FROM dashboard_audit WHERE org_id = ${fixture.orgA} AND subject = ${id} ORDER BY id`
        assert.deepStrictEqual(
          audited.map((row) => row.action),
          ["integration_sync_requested", "integration_sync_requested", "integration_sync_requested"]
        )
        // Another organization's pair is not found.
        const other = pair("Other Org Vendor → Globex").id
        assert.strictEqual(
          (yield* run(() => client.post(`/dashboard/integrations/${other}/sync`, { csrf }))).status,
          404
        )
      })
  )

  it.effect("a member can neither pause nor resume a pair, in the page or by a direct request (403)", () =>
    Effect.gen(function* () {
      const { fixture, base, sql, pair } = yield* setup
      const { client, csrf } = yield* signedIn(base, fixture.orgA, "member")
      const active = pair("Acme Supplies → Globex").id
      const paused = pair("Beta Parts → Globex").id
      const page = yield* run(() => client.get(`/dashboard/integrations/${paused}`))
      assert.notInclude(page.body, "Resume syncing")
      assert.notInclude(page.body, "/resume")
      assert.strictEqual(
        (yield* run(() => client.post(`/dashboard/integrations/${active}/pause`, { csrf }))).status,
        403
      )
      assert.strictEqual(
        (yield* run(() => client.post(`/dashboard/integrations/${paused}/resume`, { csrf }))).status,
        403
      )
      const states = yield* sql<{ id: string; paused: boolean }>`
        SELECT id, paused_at IS NOT NULL AS paused FROM integrations WHERE id IN (${active}, ${paused}) ORDER BY id`
      assert.deepStrictEqual(Object.fromEntries(states.map((row) => [row.id, row.paused])), {
        [active]: false,
        [paused]: true
      })
    })
  )

  it.effect("whatever a user of organization A asks, no page shows organization B's pairs or receivables", () =>
    Effect.gen(function* () {
      const { fixture, base, sql, pairs } = yield* setup
      const { client, csrf } = yield* signedIn(base, fixture.orgA, "admin")
      const bPairs = pairs.filter((row) => row.org_id === fixture.orgB).map((row) => row.id)
      const bReceivables = (yield* sql<{ id: string }>`SELECT id FROM receivables WHERE org_id = ${fixture.orgB}`).map(
        (row) => row.id
      )
      const bSecrets = [
        "Other Org Vendor",
        "Only Org B Buys Here",
        fixture.vendorB1,
        fixture.debtorB,
        ...bPairs,
        ...bReceivables
      ]
      const get = (path: string) => ({ method: "GET" as const, path })
      const request = fc.oneof(
        fc.constantFrom(get("/dashboard/overview"), get("/dashboard/integrations"), get("/dashboard/receivables")),
        fc.constantFrom(...bReceivables).map((id) => get(`/dashboard/receivables/${id}`)),
        fc
          .tuple(
            fc.constantFrom("vendor", "debtor"),
            fc.constantFrom(fixture.vendorB1, fixture.debtorB, ...bReceivables)
          )
          .map(([name, value]) => get(`/dashboard/receivables?${name}=${value}`)),
        fc.constantFrom(...bPairs).map((id) => get(`/dashboard/integrations/${id}`)),
        fc
          .tuple(fc.constantFrom(...bPairs), fc.constantFrom("pause", "resume"))
          .map(([id, change]) => ({ method: "POST" as const, path: `/dashboard/integrations/${id}/${change}` }))
      )
      yield* run(() =>
        fc.assert(
          fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 4 }), async (requests) => {
            for (const r of requests) {
              const answer = r.method === "GET" ? await client.get(r.path) : await client.post(r.path, { csrf })
              for (const secret of bSecrets) assert.notInclude(answer.body, secret, r.path)
              assert.oneOf(answer.status, [200, 400, 404], r.path)
            }
          }),
          { numRuns: 30 }
        )
      )
      const [unpaused] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM integrations WHERE org_id = ${fixture.orgB} AND paused_at IS NULL`
      assert.strictEqual(unpaused!.n, 2, "B's pairs are as they were")
    })
  )
})
