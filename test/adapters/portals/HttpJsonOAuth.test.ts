/**
 * OAuth 2.0 client credentials in the `http-json` connector (and Coupa's, which shares the code),
 * against a token endpoint and an API served over HTTP on loopback: the token is asked for with
 * the client's id and secret, kept until shortly before it expires, renewed once when the API
 * refuses it, and no failure reveals a credential.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Result, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as Coupa from "../../../adapters/portals/coupa/CoupaConnector.ts"
import { connector } from "../../../adapters/portals/http-json/HttpJsonConnector.ts"
import { usableFor } from "../../../adapters/portals/portal-client/ClientCredentials.ts"
import * as HttpConnector from "../../../adapters/portals/portal-client/HttpConnector.ts"
import { validateConfig } from "../../../core/receivables/ports/PortalConnector.ts"
import { pairToFetch } from "../../support/conformance/Conformance.ts"
import { json, type MockAnswer, mockPortal } from "../../support/MockPortal.ts"
import { configFor } from "./fixtures/http-json.ts"

const notation = { decimalSeparator: ".", groupsThousands: false } as const
const item = { id: 7, number: "INV-7", total: "10.00", currency: "USD", issued_on: "2026-11-02", state: "open" }
const clientSecret = "s3cr3t:with+form&chars"

interface TokenEndpoint {
  /** Each token request's form and Authorization header. */
  readonly requests: Array<{ readonly form: URLSearchParams; readonly authorization: string | undefined }>
  /** The tokens the API accepts now; clearing it revokes them. */
  readonly valid: Set<string>
}

/**
 * An identity provider's token endpoint (RFC 6749 §4.4) and an API that wants its tokens, on one
 * origin. `answer` overrides what the token endpoint says.
 */
const provider = (clientId: string, answer?: () => MockAnswer) =>
  Effect.gen(function* () {
    const endpoint: TokenEndpoint = { requests: [], valid: new Set() }
    const apiCalls: Array<string | undefined> = []
    const api = { refuseAll: false }
    const portal = yield* mockPortal((request, url, body) => {
      if (url.pathname === "/oauth/token") {
        const form = new URLSearchParams(body)
        endpoint.requests.push({ form, authorization: request.headers.authorization })
        if (answer !== undefined) return answer()
        const basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret).replaceAll("%20", "+")}`).toString("base64")}`
        const posted = form.get("client_id") === clientId && form.get("client_secret") === clientSecret
        if (request.method !== "POST" || form.get("grant_type") !== "client_credentials") {
          return { status: 400, json: { error: "invalid_request" } }
        }
        if (request.headers.authorization !== basic && !posted)
          return { status: 401, json: { error: "invalid_client" } }
        const token = `tok-${randomUUID()}`
        endpoint.valid.add(token)
        return json({ access_token: token, token_type: "Bearer", expires_in: 3600 })
      }
      apiCalls.push(request.headers.authorization)
      return !api.refuseAll && endpoint.valid.has((request.headers.authorization ?? "").replace(/^Bearer /, ""))
        ? json({ data: [item] })
        : { status: 401 }
    })
    return { portal, endpoint, apiCalls, api }
  })

const oauthConfig = (origin: string, auth: Record<string, unknown> = {}) => ({
  ...configFor(origin, "page", notation),
  pagination: { style: "none" },
  auth: {
    type: "oauth2",
    tokenUrl: `${origin}/oauth/token`,
    clientId: { env: "PORTAL_CLIENT_ID" },
    clientSecret: { env: "PORTAL_CLIENT_SECRET" },
    scope: "invoices:read",
    audience: "https://api.portal.example",
    ...auth
  }
})

layer(HttpConnector.layer)("OAuth 2.0 client credentials", (it) => {
  it.effect("asks for a token with the client's credentials and keeps it until shortly before it expires", () =>
    Effect.gen(function* () {
      const clientId = `acme-${randomUUID()}`
      const { portal, endpoint, apiCalls } = yield* provider(clientId)
      const pair = pairToFetch(oauthConfig(portal.origin), {
        PORTAL_CLIENT_ID: clientId,
        PORTAL_CLIENT_SECRET: clientSecret
      })
      const sync = Stream.runCollect(connector.fetch(pair))
      assert.strictEqual((yield* sync).length, 1)
      const [first] = endpoint.requests
      assert.deepStrictEqual(Object.fromEntries(first!.form), {
        grant_type: "client_credentials",
        scope: "invoices:read",
        audience: "https://api.portal.example"
      })
      assert.match(apiCalls[0] ?? "", /^Bearer tok-/)
      // The next syncs within the hour use the same token.
      yield* TestClock.adjust(Duration.minutes(30))
      yield* sync
      yield* TestClock.adjust(Duration.millis(usableFor(3600) - Duration.toMillis(Duration.minutes(30)) - 1))
      yield* sync
      assert.strictEqual(endpoint.requests.length, 1)
      assert.strictEqual(new Set(apiCalls).size, 1)
      // A minute before it expires, a new one.
      yield* TestClock.adjust(Duration.millis(1))
      yield* sync
      assert.strictEqual(endpoint.requests.length, 2)
      assert.strictEqual(new Set(apiCalls).size, 2)
    })
  )

  it.effect("renews a token the API refuses once, and fails as permanent when the new one is refused too", () =>
    Effect.gen(function* () {
      const clientId = `acme-${randomUUID()}`
      const { portal, endpoint, apiCalls, api } = yield* provider(clientId)
      const pair = pairToFetch(oauthConfig(portal.origin, { clientAuthentication: "post" }), {
        PORTAL_CLIENT_ID: clientId,
        PORTAL_CLIENT_SECRET: clientSecret
      })
      const sync = Stream.runCollect(connector.fetch(pair))
      yield* sync
      assert.strictEqual(endpoint.requests[0]?.form.get("client_secret"), clientSecret)
      assert.isUndefined(endpoint.requests[0]?.authorization)
      // Revoked: the next sync is refused, asks for a new token and goes on.
      endpoint.valid.clear()
      assert.strictEqual((yield* sync).length, 1)
      assert.strictEqual(endpoint.requests.length, 2)
      assert.strictEqual(apiCalls.length, 3)
      // Refused whatever the token: one renewal, then the run fails for good.
      api.refuseAll = true
      const failure = yield* Effect.flip(sync)
      assert.isFalse(failure.retryable)
      assert.include(failure.message, "refused the credentials (401)")
      assert.strictEqual(endpoint.requests.length, 3)
      assert.strictEqual(apiCalls.length, 5)
    })
  )

  it.effect("classifies the token endpoint's failures and never reveals the client's id or secret", () =>
    Effect.gen(function* () {
      const clientId = `acme-${randomUUID()}`
      const secrets = { PORTAL_CLIENT_ID: clientId, PORTAL_CLIENT_SECRET: clientSecret }
      const cases: ReadonlyArray<readonly [string, MockAnswer, boolean]> = [
        ["unavailable", { status: 503, headers: { "retry-after": "120" } }, true],
        ["rate limited", { status: 429 }, true],
        ["client refused", { status: 401, json: { error: "invalid_client", error_description: clientSecret } }, false],
        ["bad request", { status: 400, json: { error: "invalid_scope" } }, false],
        ["no token", json({ token_type: "Bearer", expires_in: 3600 }), false],
        ["another kind of token", json({ access_token: "t", token_type: "mac" }), false]
      ]
      for (const [name, answer, retryable] of cases) {
        const { portal, apiCalls } = yield* provider(clientId, () => answer)
        const failure = yield* Effect.flip(
          Stream.runCollect(connector.fetch(pairToFetch(oauthConfig(portal.origin), secrets)))
        )
        assert.strictEqual(failure.retryable, retryable, name)
        assert.include(failure.message, "/oauth/token", name)
        assert.notInclude(JSON.stringify(failure), clientSecret, name)
        assert.notInclude(JSON.stringify(failure), clientId, name)
        assert.deepStrictEqual(apiCalls, [], name)
        if (name === "unavailable") assert.strictEqual(failure.retryAfterSeconds, 120)
      }
    })
  )

  it("refuses an OAuth configuration with a pasted secret or a token endpoint that is not https, naming the field", () => {
    for (const [auth, field] of [
      [{ clientSecret: "pasted-secret" }, "auth"],
      [{ clientId: "acme" }, "auth"],
      [{ tokenUrl: "http://login.portal.example/oauth/token" }, "auth"],
      [{ clientAuthentication: "jwt" }, "auth"]
    ] as const) {
      const refused = validateConfig(connector, oauthConfig("https://portal.example", auth))
      assert.isTrue(Result.isFailure(refused), JSON.stringify(auth))
      if (Result.isFailure(refused)) assert.isTrue(refused.failure.field.startsWith(field), refused.failure.field)
    }
    assert.isTrue(Result.isSuccess(validateConfig(connector, oauthConfig("https://portal.example"))))
  })

  it.effect("Coupa keeps its token between syncs and renews it when refused", () =>
    Effect.gen(function* () {
      let tokens = 0
      let valid = ""
      const portal = yield* mockPortal((request, url, body) => {
        if (url.pathname === "/oauth2/token") {
          const form = new URLSearchParams(body)
          if (form.get("client_secret") !== clientSecret) return { status: 401, json: { error: "invalid_client" } }
          valid = `coupa-${++tokens}`
          return json({ access_token: valid, token_type: "bearer", expires_in: 86399 })
        }
        return request.headers.authorization === `Bearer ${valid}` ? json([]) : { status: 401 }
      })
      const pair = pairToFetch(
        {
          instanceUrl: portal.origin,
          supplierId: 77,
          clientId: `coupa-${randomUUID()}`,
          clientSecret: { env: "COUPA_CLIENT_SECRET" }
        },
        { COUPA_CLIENT_SECRET: clientSecret }
      )
      const sync = Stream.runCollect(Coupa.connector.fetch(pair))
      yield* sync
      yield* sync
      assert.strictEqual(tokens, 1)
      valid = "revoked"
      yield* sync
      assert.strictEqual(tokens, 2)
    })
  )
})
