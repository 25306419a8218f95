/**
 * CORS over a real socket: off by default (no CORS header, OPTIONS answered 405 as before); with
 * `CORS_ORIGINS` set, an allowed origin's preflight for a GET with a key is 204 (audited, no key
 * needed), its answers (errors too) name it and expose the headers a client reads, every answer
 * varies by Origin, and another origin gets no CORS header at all.
 */
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { insertFixture, keys } from "../support/Fixtures.ts"
import { type RawAnswer, rawGet } from "../support/RawHttp.ts"
import { BaseUrl, layerWith } from "../support/TestServer.ts"

const allowed = "https://app.example.com"

const serverWith = (corsOrigins: string | undefined) =>
  Layer.effectDiscard(insertFixture).pipe(
    Layer.provideMerge(layerWith()),
    Layer.provide(
      ConfigProvider.layerAdd(
        ConfigProvider.fromUnknown(corsOrigins === undefined ? {} : { CORS_ORIGINS: corsOrigins }),
        {
          asPrimary: true
        }
      )
    )
  )

const send = (path: string, headers: Record<string, string>, method = "GET") =>
  Effect.flatMap(BaseUrl, (base) => Effect.promise(() => rawGet(base, path, headers, method)))

const header = (answer: RawAnswer, name: string) => {
  const value = answer.headers[name]
  return typeof value === "string" ? value : undefined
}

const corsHeaders = (answer: RawAnswer) =>
  Object.keys(answer.headers).filter((name) => name.startsWith("access-control-"))

const preflightHeaders = (origin: string) => ({
  origin,
  "access-control-request-method": "GET",
  "access-control-request-headers": "authorization"
})

layer(serverWith(undefined), { timeout: 60_000, excludeTestServices: true })("CORS, not configured", (it) => {
  it.effect("adds no CORS header anywhere, and OPTIONS keeps its 405", () =>
    Effect.gen(function* () {
      const answer = yield* send("/v1/vendors", { origin: allowed, authorization: `Bearer ${keys.orgA}` })
      assert.strictEqual(answer.status, 200)
      assert.deepStrictEqual(corsHeaders(answer), [])
      assert.notInclude(header(answer, "vary") ?? "", "Origin")
      const preflight = yield* send("/v1/vendors", preflightHeaders(allowed), "OPTIONS")
      assert.strictEqual(preflight.status, 405)
      assert.strictEqual(header(preflight, "allow"), "GET")
      assert.deepStrictEqual(corsHeaders(preflight), [])
    })
  )
})

layer(serverWith(`${allowed}, http://localhost:5173`), { timeout: 60_000, excludeTestServices: true })(
  "CORS for listed origins",
  (it) => {
    it.effect("answers an allowed origin's preflight 204 without a key, audited", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const answer = yield* send("/v1/receivables", preflightHeaders(allowed), "OPTIONS")
        assert.strictEqual(answer.status, 204)
        assert.strictEqual(header(answer, "access-control-allow-origin"), allowed)
        assert.strictEqual(header(answer, "access-control-allow-methods"), "GET, HEAD")
        const head = yield* send(
          "/v1/receivables",
          { ...preflightHeaders(allowed), "access-control-request-method": "HEAD" },
          "OPTIONS"
        )
        assert.strictEqual(head.status, 204)
        const allowedHeaders = (header(answer, "access-control-allow-headers") ?? "").toLowerCase()
        assert.include(allowedHeaders, "authorization")
        assert.include(allowedHeaders, "if-none-match")
        assert.match(header(answer, "access-control-max-age") ?? "", /^\d+$/)
        assert.include(header(answer, "vary") ?? "", "Origin")
        const [row] = yield* sql<{ status: number; method: string; key_id: string | null }>`
          SELECT status, method, key_id FROM audit_log WHERE request_id = ${header(answer, "request-id")!}`
        assert.deepStrictEqual({ ...row }, { status: 204, method: "OPTIONS", key_id: null })
      })
    )

    it.effect("names the allowed origin on answers, errors included, and exposes the headers clients read", () =>
      Effect.gen(function* () {
        for (const [headers, status] of [
          [{ authorization: `Bearer ${keys.orgA}` }, 200],
          [{}, 401]
        ] as const) {
          const answer = yield* send("/v1/vendors", { origin: "http://localhost:5173", ...headers })
          assert.strictEqual(answer.status, status)
          assert.strictEqual(header(answer, "access-control-allow-origin"), "http://localhost:5173")
          const exposed = (header(answer, "access-control-expose-headers") ?? "").toLowerCase()
          for (const name of [
            "request-id",
            "ratelimit-limit",
            "ratelimit-remaining",
            "ratelimit-reset",
            "retry-after",
            "etag"
          ]) {
            assert.include(exposed, name)
          }
          assert.include(header(answer, "vary") ?? "", "Origin")
        }
      })
    )

    it.effect("gives other origins no CORS header, and their preflight the 405 of any OPTIONS", () =>
      Effect.gen(function* () {
        for (const origin of [
          "https://evil.example.com",
          "https://app.example.com.evil.com",
          "HTTPS://APP.EXAMPLE.COM",
          "null"
        ]) {
          const answer = yield* send("/v1/vendors", { origin, authorization: `Bearer ${keys.orgA}` })
          assert.strictEqual(answer.status, 200)
          assert.deepStrictEqual(corsHeaders(answer), [], origin)
          // Still marked as varying, so no cache gives this answer to an allowed origin.
          assert.include(header(answer, "vary") ?? "", "Origin")
          const preflight = yield* send("/v1/vendors", preflightHeaders(origin), "OPTIONS")
          assert.strictEqual(preflight.status, 405, origin)
          assert.deepStrictEqual(corsHeaders(preflight), [], origin)
        }
        // A preflight for another method than GET is no preflight this API answers.
        const post = yield* send(
          "/v1/vendors",
          { ...preflightHeaders(allowed), "access-control-request-method": "POST" },
          "OPTIONS"
        )
        assert.strictEqual(post.status, 405)
      })
    )
  }
)

layer(serverWith("*"), { timeout: 60_000, excludeTestServices: true })("CORS for any origin", (it) => {
  it.effect("answers every request with *, with or without Origin, and does not vary by Origin", () =>
    Effect.gen(function* () {
      const answer = yield* send("/v1/vendors", {
        origin: "https://anyone.example",
        authorization: `Bearer ${keys.orgA}`
      })
      assert.strictEqual(header(answer, "access-control-allow-origin"), "*")
      assert.notInclude(header(answer, "vary") ?? "", "Origin")
      const preflight = yield* send("/v1/vendors", preflightHeaders("https://anyone.example"), "OPTIONS")
      assert.strictEqual(preflight.status, 204)
      assert.strictEqual(header(preflight, "access-control-allow-origin"), "*")
      // A shared cache may keep an answer fetched without Origin and hand it to a browser.
      const withoutOrigin = yield* send("/v1/openapi.json", {})
      assert.strictEqual(header(withoutOrigin, "access-control-allow-origin"), "*")
    })
  )
})
