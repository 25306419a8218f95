/**
 * The dashboard over a real socket, with the API beside it: invites, sign-in and sign-out, keys
 * created and revoked (and the API's answer to them), what members may not do, forged
 * cross-site requests, security headers, the audit of every action, and organizations kept apart
 * (a property over generated requests). The browser's view is `dashboard-browser.test.ts`.
 */
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import type { DirectClient } from "../../adapters/postgres/Database.ts"
import { AccountsLive } from "../../app/Layers.ts"
import { csrfOf, email, inviteToken, makeClient, password, run, signedIn } from "../support/DashboardClient.ts"
import { type Fixture, keys as fixtureKeys, insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/DashboardFixture") {}

/** A server behind a proxy it trusts (the test itself, on loopback), which may say the client used HTTPS. */
class ProxiedBaseUrl extends Context.Service<ProxiedBaseUrl, string>()("test/ProxiedBaseUrl") {}
/** A server whose public URL is `https://`, reached directly. */
class HttpsPublicBaseUrl extends Context.Service<HttpsPublicBaseUrl, string>()("test/HttpsPublicBaseUrl") {}

const baseOf = <I>(
  tag: Context.Key<I, string>,
  server: Layer.Layer<BaseUrl, unknown, SqlClient.SqlClient | DirectClient>
) => Layer.effect(tag, Effect.service(BaseUrl)).pipe(Layer.provide(server))

const TestLayer = Layer.mergeAll(
  serverLayer({ dashboard: true }),
  baseOf(ProxiedBaseUrl, serverLayer({ dashboard: true, trustedProxies: ["127.0.0.1"] })),
  baseOf(
    HttpsPublicBaseUrl,
    serverLayer({ dashboard: true }).pipe(
      Layer.provide(
        ConfigProvider.layerAdd(ConfigProvider.fromUnknown({ PUBLIC_URL: "https://dashboard.example.com" }), {
          asPrimary: true
        })
      )
    )
  ),
  AccountsLive,
  Layer.effect(TestFixture, insertFixture)
).pipe(Layer.provideMerge(TestDatabase.layer))

const setup = Effect.all({ fixture: Effect.service(TestFixture), base: Effect.service(BaseUrl) })

const vendors = (base: string, key: string) =>
  run(() => fetch(`${base}/v1/vendors`, { headers: { authorization: `Bearer ${key}` } }))

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard over HTTP", (it) => {
  it.effect("an invite sets the password and signs in; the cookie and every answer carry the security settings", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const client = makeClient(base)
      const token = yield* inviteToken(fixture.orgA, "Ada@Example.com", "admin")
      const invitePage = yield* run(() => client.get(`/dashboard/invite/${token}`))
      assert.strictEqual(invitePage.status, 200)
      assert.include(invitePage.body, "ada@example.com")
      assert.notInclude(invitePage.body, token, "the page does not repeat the link's token")
      const differing = yield* run(() =>
        client.post(`/dashboard/invite/${token}`, { password, repeat: `${password}!` })
      )
      assert.strictEqual(differing.status, 400)
      const accepted = yield* run(() => client.accept(token))
      assert.strictEqual(accepted.status, 303)
      const cookie = accepted.headers.get("set-cookie") ?? ""
      assert.match(cookie, /^pr_session=[A-Za-z0-9_-]{43}; /)
      assert.match(cookie, /HttpOnly/)
      assert.match(cookie, /SameSite=Lax/)
      assert.match(cookie, /Path=\/dashboard/)
      assert.notMatch(cookie, /Secure/)

      const signInPage = yield* run(() => makeClient(base).get("/dashboard/sign-in"))
      const assets = [...signInPage.body.matchAll(/(?:href|src)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!)
      assert.strictEqual(assets.length, 3)
      for (const path of ["/dashboard/keys", "/dashboard/sign-in", ...assets, "/dashboard/nowhere"]) {
        const answer = yield* run(() => client.get(path))
        const csp = answer.headers.get("content-security-policy") ?? ""
        assert.include(csp, "default-src 'none'", path)
        assert.include(csp, "frame-ancestors 'none'", path)
        assert.notInclude(csp, "unsafe-inline", path)
        assert.strictEqual(answer.headers.get("x-frame-options"), "DENY", path)
        assert.strictEqual(answer.headers.get("x-content-type-options"), "nosniff", path)
        assert.strictEqual(answer.headers.get("referrer-policy"), "no-referrer", path)
        // Pages are never kept; assets, named by their content's digest, are kept for a year.
        const kept = assets.includes(path)
        assert.strictEqual(
          answer.headers.get("cache-control"),
          kept ? "public, max-age=31536000, immutable" : "no-store",
          path
        )
        // An asset is tagged (compressed once, `dashboard-transfer.test.ts`); a page, never kept, is not.
        if (!kept) assert.isNull(answer.headers.get("etag"), path)
        if (kept) assert.match(path, /^\/dashboard\/assets\/[a-z]+-[0-9a-f]{16}\.(css|js)$/)
        assert.match(answer.headers.get("request-id") ?? "", /^req_/, path)
      }
      assert.strictEqual((yield* run(() => client.get("/dashboard/nowhere"))).status, 404)
      assert.strictEqual((yield* run(() => client.get("/dashboard/assets/pico.css"))).status, 404)
      assert.notInclude((yield* run(() => client.get("/dashboard/nowhere"))).body, "resource_missing")
    })
  )

  it.effect("over HTTPS (a trusted proxy says so, or PUBLIC_URL is https://) the cookie is Secure and __Secure-", () =>
    Effect.gen(function* () {
      const { fixture } = yield* setup
      const servers = [
        { base: yield* ProxiedBaseUrl, headers: { "x-forwarded-proto": "https" } },
        { base: yield* HttpsPublicBaseUrl, headers: {} }
      ]
      for (const { base, headers } of servers) {
        const token = yield* inviteToken(fixture.orgA, email("admin"), "admin")
        // What the browser sends: the page's own origin, which is the HTTPS one.
        const origin = base.replace(/^http:/, "https:")
        const accepted = yield* run(() =>
          fetch(`${base}/dashboard/invite/${token}`, {
            method: "POST",
            redirect: "manual",
            headers: { "content-type": "application/x-www-form-urlencoded", origin, ...headers },
            body: new URLSearchParams({ password, repeat: password }).toString()
          })
        )
        assert.strictEqual(accepted.status, 303, base)
        const cookie = accepted.headers.get("set-cookie") ?? ""
        assert.match(cookie, /^__Secure-pr_session=[A-Za-z0-9_-]{43}; /, base)
        assert.match(cookie, /; Secure/, base)
        assert.match(cookie, /HttpOnly/, base)
        const page = yield* run(() =>
          fetch(`${base}/dashboard/keys`, {
            redirect: "manual",
            headers: { cookie: cookie.split(";")[0] ?? "", ...headers }
          })
        )
        assert.strictEqual(page.status, 200, base)
      }
    })
  )

  it.effect(
    "a key created in the dashboard works on the API until it is revoked there, refused on the next request",
    () =>
      Effect.gen(function* () {
        const { fixture, base } = yield* setup
        const { client, csrf } = yield* signedIn(base, fixture.orgA, "admin")
        const created = yield* run(() => client.post("/dashboard/keys", { csrf, name: "reporting" }))
        assert.strictEqual(created.status, 303)
        const shown = yield* run(() => client.get(created.headers.get("location") ?? ""))
        const key = /id="new-key"[^>]*value="(pr_live_[0-9A-Za-z]{39})"/.exec(shown.body)?.[1] ?? ""
        assert.match(key, /^pr_live_/)
        assert.strictEqual((yield* vendors(base, key)).status, 200)

        const listed = yield* run(() => client.get("/dashboard/keys"))
        assert.notInclude(listed.body, key, "the key is shown once, at creation")
        const id = /\/dashboard\/keys\/([0-9a-f-]{36})\/revoke"[^>]*aria-label="Revoke reporting"/.exec(
          listed.body
        )?.[1]
        assert.isDefined(id)
        const confirm = yield* run(() => client.get(`/dashboard/keys/${id}/revoke`))
        assert.strictEqual(confirm.status, 200)
        assert.include(confirm.body, "cannot be undone")
        const revoked = yield* run(() => client.post(`/dashboard/keys/${id}/revoke`, { csrf }))
        assert.strictEqual(revoked.status, 303)
        const refused = yield* vendors(base, key)
        assert.strictEqual(refused.status, 401)
        assert.strictEqual(
          ((yield* run(() => refused.json())) as { error: { code: string } }).error.code,
          "api_key_revoked"
        )
        const after = yield* run(() => client.get(revoked.headers.get("location") ?? ""))
        assert.include(after.body, "the API refuses it from its next request on")
      })
  )

  it.effect("a member sees the keys but cannot create or revoke them, in the page or by a direct request (403)", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const { client, csrf } = yield* signedIn(base, fixture.orgA, "member")
      const page = yield* run(() => client.get("/dashboard/keys"))
      assert.notInclude(page.body, 'action="/dashboard/keys"')
      assert.notInclude(page.body, "Revoke…")
      assert.strictEqual((yield* run(() => client.post("/dashboard/keys", { csrf, name: "sneaky" }))).status, 403)
      const sql = yield* SqlClient.SqlClient
      const [key] = yield* sql<{
        id: string
      }>`SELECT id FROM api_keys WHERE org_id = ${fixture.orgA} AND revoked_at IS NULL`
      assert.strictEqual((yield* run(() => client.post(`/dashboard/keys/${key!.id}/revoke`, { csrf }))).status, 403)
      assert.strictEqual((yield* run(() => client.get(`/dashboard/keys/${key!.id}/revoke`))).status, 403)
      assert.strictEqual((yield* vendors(base, fixtureKeys.orgA)).status, 200)
      const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM api_keys WHERE name = 'sneaky'`
      assert.strictEqual(count!.n, 0)
    })
  )

  it.effect("forged cross-site posts are refused: a foreign or missing Origin, a missing or wrong CSRF token", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const { client, csrf } = yield* signedIn(base, fixture.orgA, "admin")
      const other = yield* signedIn(base, fixture.orgA, "admin")
      const attempts = [
        client.post("/dashboard/keys", { csrf, name: "forged" }, "https://evil.example"),
        client.post("/dashboard/keys", { csrf, name: "forged" }, null),
        client.post("/dashboard/keys", { csrf, name: "forged" }, "null"),
        client.post("/dashboard/keys", { csrf, name: "forged" }, "null", { "sec-fetch-site": "cross-site" }),
        client.post("/dashboard/keys", { csrf, name: "forged" }, base, { "sec-fetch-site": "same-site" }),
        client.post("/dashboard/keys", { name: "forged" }),
        client.post("/dashboard/keys", { csrf: other.csrf, name: "forged" }),
        client.post("/dashboard/keys", { csrf: `${csrf}x`, name: "forged" })
      ]
      for (const attempt of attempts) assert.strictEqual((yield* run(() => attempt)).status, 403)
      // What a browser sends under `Referrer-Policy: no-referrer`: an opaque origin, and the site.
      const fromOwnPage = yield* run(() =>
        client.post("/dashboard/keys", { csrf, name: "ours" }, "null", { "sec-fetch-site": "same-origin" })
      )
      assert.strictEqual(fromOwnPage.status, 303)
      const signOut = yield* run(() => client.post("/dashboard/sign-out", { csrf }, "https://evil.example"))
      assert.strictEqual(signOut.status, 403)
      const signIn = yield* run(() =>
        makeClient(base).post("/dashboard/sign-in", { email: "x@example.com", password }, "https://evil.example")
      )
      assert.strictEqual(signIn.status, 403)
      const sql = yield* SqlClient.SqlClient
      const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM api_keys WHERE name = 'forged'`
      assert.strictEqual(count!.n, 0)
      assert.strictEqual((yield* run(() => client.get("/dashboard/keys"))).status, 200, "still signed in")
    })
  )

  it.effect("after sign-out, and everywhere after sign-out everywhere, a session is refused", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const address = email("admin")
      const first = makeClient(base)
      const token = yield* inviteToken(fixture.orgA, address, "admin")
      yield* run(() => first.accept(token))
      const firstCsrf = csrfOf((yield* run(() => first.get("/dashboard/keys"))).body)
      const oldCookie = first.cookie
      const signedOut = yield* run(() => first.post("/dashboard/sign-out", { csrf: firstCsrf }))
      assert.strictEqual(signedOut.status, 303)
      first.cookie = oldCookie
      assert.strictEqual((yield* run(() => first.get("/dashboard/keys"))).headers.get("location"), "/dashboard/sign-in")
      const replayed = yield* run(() => first.post("/dashboard/keys", { csrf: firstCsrf, name: "replayed" }))
      assert.strictEqual(replayed.headers.get("location"), "/dashboard/sign-in")

      const wrong = yield* run(() =>
        makeClient(base).post("/dashboard/sign-in", { email: address, password: "wrong password!" })
      )
      assert.strictEqual(wrong.status, 401)
      const laptop = makeClient(base)
      const phone = makeClient(base)
      for (const device of [laptop, phone]) {
        const answer = yield* run(() => device.post("/dashboard/sign-in", { email: address.toUpperCase(), password }))
        assert.strictEqual(answer.status, 303)
      }
      const csrf = csrfOf((yield* run(() => laptop.get("/dashboard/keys"))).body)
      assert.strictEqual((yield* run(() => laptop.post("/dashboard/sign-out-everywhere", { csrf }))).status, 303)
      assert.strictEqual(
        (yield* run(() => phone.get("/dashboard/keys"))).headers.get("location"),
        "/dashboard/sign-in?ended=signed_out_everywhere"
      )
      assert.include(
        (yield* run(() => phone.get("/dashboard/sign-in?ended=signed_out_everywhere"))).body,
        "you signed out everywhere from another device"
      )

      const sql = yield* SqlClient.SqlClient
      const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM api_keys WHERE name = 'replayed'`
      assert.strictEqual(count!.n, 0)
      const actions = yield* sql<{ action: string; client_address: string | null }>`
        SELECT a.action, a.client_address FROM dashboard_audit a JOIN dashboard_users u ON u.id = a.user_id
        WHERE u.email = ${address} ORDER BY a.id`
      assert.deepStrictEqual(
        actions.map((row) => row.action),
        ["invite_accepted", "sign_out", "sign_in_failed", "sign_in", "sign_in", "sign_out_everywhere"]
      )
      assert.isTrue(actions.every((row) => row.client_address === "127.0.0.1"))
    })
  )

  it.effect(
    "sign-in from an address is throttled after five wrong passwords there (429, Retry-After), also for the right one",
    () =>
      Effect.gen(function* () {
        const { fixture, base } = yield* setup
        const address = email("member")
        const token = yield* inviteToken(fixture.orgA, address, "member")
        yield* run(() => makeClient(base).accept(token))
        const client = makeClient(base)
        for (let attempt = 0; attempt < 5; attempt++) {
          const wrong = yield* run(() =>
            client.post("/dashboard/sign-in", { email: address, password: "not it at all" })
          )
          assert.strictEqual(wrong.status, 401)
          assert.include(wrong.body, "Wrong e-mail address or password.")
        }
        const locked = yield* run(() => client.post("/dashboard/sign-in", { email: address, password }))
        assert.strictEqual(locked.status, 429)
        assert.match(locked.headers.get("retry-after") ?? "", /^\d+$/)
        assert.isUndefined(client.cookie)
      })
  )

  it.effect("paths under /dashboard that are not plain segments are the API's unknown paths", () =>
    Effect.gen(function* () {
      const { base } = yield* setup
      for (const path of [
        "/dashboard/",
        "/dashboard//keys",
        "/dashboard/%6Beys",
        "/dashboard/%2e%2e",
        "/dashboard/keys;x",
        "/Dashboard"
      ]) {
        const answer = yield* run(() => fetch(`${base}${path}`, { redirect: "manual" }))
        assert.strictEqual(answer.status, 404, path)
        const body = (yield* run(() => answer.json())) as { error: { code: string } }
        assert.strictEqual(body.error.code, "resource_missing", path)
      }
    })
  )

  it.effect("a used, expired or made-up invite link is refused, and its token never reaches the audit log", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const sql = yield* SqlClient.SqlClient
      const used = yield* inviteToken(fixture.orgA, email("member"), "member")
      yield* run(() => makeClient(base).accept(used))
      const expired = yield* inviteToken(fixture.orgA, email("member"), "member")
      yield* sql`UPDATE dashboard_invites SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`
      for (const token of [used, expired, "A".repeat(43), "not-a-token"]) {
        const client = makeClient(base)
        assert.strictEqual((yield* run(() => client.get(`/dashboard/invite/${token}`))).status, 410)
        const posted = yield* run(() => client.accept(token))
        assert.strictEqual(posted.status, 410)
        assert.isUndefined(client.cookie)
      }
      const logged = yield* sql<{
        path: string
        query: string
      }>`SELECT path, query FROM audit_log WHERE path LIKE '/dashboard%'`
      assert.isAbove(logged.length, 0)
      for (const row of logged) {
        for (const secret of [used, expired, password]) assert.notInclude(`${row.path}?${row.query}`, secret)
      }
      assert.isTrue(logged.some((row) => row.path === "/dashboard/invite/[redacted]"))
    })
  )

  it.effect("whatever a user of organization A asks, no answer shows organization B's keys, and B's keys stay", () =>
    Effect.gen(function* () {
      const { fixture, base } = yield* setup
      const sql = yield* SqlClient.SqlClient
      const bKeys = yield* sql<{ id: string }>`SELECT id FROM api_keys WHERE org_id = ${fixture.orgB}`
      yield* sql`UPDATE api_keys SET name = 'org-b-secret-name' WHERE org_id = ${fixture.orgB}`
      const { client, csrf } = yield* signedIn(base, fixture.orgA, "admin")
      const bIds = bKeys.map((row) => row.id)
      const request = fc.oneof(
        fc.constant({ method: "GET", path: "/dashboard/keys" }),
        fc.constantFrom(...bIds).map((id) => ({ method: "GET", path: `/dashboard/keys/${id}/revoke` })),
        fc.constantFrom(...bIds).map((id) => ({ method: "GET", path: `/dashboard/keys/${id}` })),
        fc.constantFrom(...bIds).map((id) => ({ method: "POST", path: `/dashboard/keys/${id}/revoke` })),
        fc.constantFrom(...bIds).map((id) => ({ method: "GET", path: `/dashboard/keys?revoked=${id}` })),
        fc.string({ maxLength: 12 }).map((name) => ({ method: "POST", path: "/dashboard/keys", name }))
      )
      yield* run(() =>
        fc.assert(
          fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 4 }), async (requests) => {
            for (const r of requests) {
              const answer =
                r.method === "GET"
                  ? await client.get(r.path)
                  : await client.post(r.path, { csrf, ...("name" in r ? { name: r.name } : {}) })
              assert.notInclude(answer.body, "org-b-secret-name")
              for (const id of bIds) assert.notInclude(answer.body, id)
              assert.oneOf(answer.status, [200, 201, 303, 400, 404])
            }
          }),
          { numRuns: 30 }
        )
      )
      const [stillActive] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM api_keys WHERE org_id = ${fixture.orgB} AND revoked_at IS NULL`
      assert.strictEqual(stillActive!.n, 1)
      assert.strictEqual((yield* vendors(base, fixtureKeys.orgB)).status, 200)
    })
  )
})
