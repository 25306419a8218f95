/**
 * The Keys pages over a real socket: creating a key redirects to a page that shows it once (a
 * reload neither shows it again nor makes a second key), with a `curl` line that works; a name
 * already carried by an active key is warned of; keys are listed newest first, revoked ones
 * folded away; each key has its own page with its last use, requests per day and top paths.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../app/Layers.ts"
import { type Client, run, signedIn } from "../support/DashboardClient.ts"
import { type Fixture, keys as fixtureKeys, insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/DashboardKeysFixture") {}

const TestLayer = Layer.mergeAll(
  serverLayer({ dashboard: true }),
  AccountsLive,
  Layer.effect(TestFixture, insertFixture)
).pipe(Layer.provideMerge(TestDatabase.layer))

const setup = Effect.all({ fixture: Effect.service(TestFixture), base: Effect.service(BaseUrl) })

const newKeyOf = (body: string) => /id="new-key"[^>]*value="(pr_live_[0-9A-Za-z]{39})"/.exec(body)?.[1]

/** Creates a key through the form and follows the redirect: the page showing it. */
const create = (client: Client, csrf: string, name: string) =>
  Effect.gen(function* () {
    const posted = yield* run(() => client.post("/dashboard/keys", { csrf, name }))
    assert.strictEqual(posted.status, 303)
    assert.strictEqual(posted.headers.get("location"), "/dashboard/keys/new")
    assert.notInclude(posted.body, "pr_live_", "the POST's answer carries no key")
    return yield* run(() => client.get("/dashboard/keys/new"))
  })

const keysNamed = (name: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    Effect.map(sql<{ n: number }>`SELECT count(*)::int AS n FROM api_keys WHERE name = ${name}`, ([row]) => row?.n ?? 0)
  )

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard's keys", (it) => {
  it.effect("a new key is shown once after a redirect; reloading shows it no more and makes no second key", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const { client, csrf } = yield* signedIn(base, fixture.orgA, "admin")
      const shown = yield* create(client, csrf, "reload-me")
      assert.strictEqual(shown.status, 200)
      const key = newKeyOf(shown.body)
      assert.isDefined(key)
      const curl = /id="try-key"[^>]*value="([^"]+)"/.exec(shown.body)?.[1]?.replaceAll("&quot;", '"')
      assert.strictEqual(curl, `curl -H "Authorization: Bearer ${key}" ${base}/v1/receivables`)
      const used = yield* run(() => fetch(`${base}/v1/receivables`, { headers: { authorization: `Bearer ${key}` } }))
      assert.strictEqual(used.status, 200, "the curl line's request works")

      const reloaded = yield* run(() => client.get("/dashboard/keys/new"))
      assert.strictEqual(reloaded.status, 303)
      assert.strictEqual(reloaded.headers.get("location"), "/dashboard/keys?shown")
      assert.notInclude(reloaded.body, key!)
      const list = yield* run(() => client.get("/dashboard/keys?shown"))
      assert.include(list.body, "shown once and is not shown again")
      assert.notInclude(list.body, key!)
      assert.strictEqual(yield* keysNamed("reload-me"), 1)
    })
  )

  it.effect("a name an active key already has is warned of; a revoked namesake is not", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const { client, csrf } = yield* signedIn(base, fixture.orgA, "admin")
      const first = yield* create(client, csrf, "billing")
      assert.notInclude(first.body, "also named")
      const second = yield* create(client, csrf, " Billing ")
      assert.include(second.body, "Another active key is also named")
      assert.isDefined(newKeyOf(second.body), "a warning, not a refusal")
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE org_id = ${fixture.orgA} AND lower(trim(name)) = 'billing'`
      const third = yield* create(client, csrf, "billing")
      assert.notInclude(third.body, "also named")
    })
  )

  it.effect("keys are listed newest first; revoked ones are folded away below the active ones", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const { client, csrf } = yield* signedIn(base, fixture.orgA, "admin")
      for (const name of ["order-1", "order-2", "order-3"]) yield* create(client, csrf, name)
      const sql = yield* SqlClient.SqlClient
      // Creation instants a second apart, whatever the clock's resolution.
      yield* sql`
        UPDATE api_keys SET created_at = now() - (interval '1 second' * (4 - substring(name from 7)::int))
        WHERE org_id = ${fixture.orgA} AND name LIKE 'order-_'`
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE org_id = ${fixture.orgA} AND name = 'order-2'`
      const page = (yield* run(() => client.get("/dashboard/keys"))).body
      const [active = "", folded = ""] = page.split("<details>")
      assert.isBelow(active.indexOf(">order-3<"), active.indexOf(">order-1<"))
      assert.isAbove(active.indexOf(">order-3<"), 0)
      assert.notInclude(active, ">order-2<")
      assert.include(folded, "Revoked keys")
      assert.include(folded, ">order-2<")
    })
  )

  it.effect("a key's page shows its last use, its requests per day and its top paths; another's is not found", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const { client } = yield* signedIn(base, fixture.orgA, "member")
      const sql = yield* SqlClient.SqlClient
      const [own] = yield* sql<{ id: string }>`
        SELECT id FROM api_keys WHERE org_id = ${fixture.orgA} AND key_hash = sha256(convert_to(${fixtureKeys.orgA}, 'UTF8'))`
      const [other] = yield* sql<{ id: string }>`SELECT id FROM api_keys WHERE org_id = ${fixture.orgB} LIMIT 1`
      const ask = (path: string) =>
        run(() => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${fixtureKeys.orgA}` } }))
      for (const path of ["/v1/vendors", "/v1/vendors", "/v1/vendors", "/v1/debtors", "/v1/receivables?limit=501"]) {
        yield* ask(path)
      }
      const page = yield* run(() => client.get(`/dashboard/keys/${own!.id}`))
      assert.strictEqual(page.status, 200)
      assert.notInclude(page.body, ">never<", "it was used")
      const rows = [...page.body.matchAll(/<code>(\/v1\/[a-z]+)<\/code><\/th>\s*<td class="number"[^>]*>(\d+)</g)].map(
        (m) => [m[1], Number(m[2])]
      )
      assert.deepStrictEqual(rows.slice(0, 1), [["/v1/vendors", 3]])
      assert.includeDeepMembers(rows, [
        ["/v1/receivables", 1],
        ["/v1/debtors", 1]
      ])
      const usage = JSON.parse(
        (/data-usage="([^"]+)"/.exec(page.body)?.[1] ?? "[]").replaceAll("&quot;", '"')
      ) as ReadonlyArray<{ succeeded: number; clientErrors: number }>
      assert.strictEqual(usage.length, 30)
      assert.isAtLeast(usage.at(-1)!.succeeded, 4)
      assert.isAtLeast(usage.at(-1)!.clientErrors, 1)
      assert.strictEqual((yield* run(() => client.get(`/dashboard/keys/${other!.id}`))).status, 404)
      assert.notInclude(page.body, "/revoke", "a member is offered no revoke")
    })
  )

  it.effect("regression: a key's own page offers an admin its revoke, through the list's confirmation", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const { client, csrf } = yield* signedIn(base, fixture.orgA, "admin")
      const shown = yield* create(client, csrf, "revoke-from-its-page")
      const key = newKeyOf(shown.body)
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ id: string }>`SELECT id FROM api_keys WHERE name = 'revoke-from-its-page'`
      const own = yield* run(() => client.get(`/dashboard/keys/${row!.id}`))
      assert.include(own.body, `href="/dashboard/keys/${row!.id}/revoke"`)
      const confirm = yield* run(() => client.get(`/dashboard/keys/${row!.id}/revoke`))
      assert.strictEqual(confirm.status, 200)
      assert.include(confirm.body, "Revoke the key")
      const withoutCsrf = yield* run(() => client.post(`/dashboard/keys/${row!.id}/revoke`, { csrf: "" }))
      assert.strictEqual(withoutCsrf.status, 403)
      const revoked = yield* run(() => client.post(`/dashboard/keys/${row!.id}/revoke`, { csrf }))
      assert.strictEqual(revoked.status, 303)
      const used = yield* run(() => fetch(`${base}/v1/receivables`, { headers: { authorization: `Bearer ${key}` } }))
      assert.strictEqual(used.status, 401)
      const after = yield* run(() => client.get(`/dashboard/keys/${row!.id}`))
      assert.notInclude(after.body, "/revoke", "a revoked key offers no second revoke")
    })
  )
})
