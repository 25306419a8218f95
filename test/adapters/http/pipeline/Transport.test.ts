/**
 * The steps that shape how an answer travels and who may read it: CORS (preflights answered for
 * the API's routes only, answers decorated for allowed origins, never the dashboard's) and the
 * transfer (an API answer tagged and compressed, a dashboard page compressed but never tagged).
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import * as DocsAssets from "../../../../adapters/http/api/DocsAssets.ts"
import * as Cors from "../../../../adapters/http/pipeline/Cors.ts"
import * as Transfer from "../../../../adapters/http/pipeline/Transfer.ts"
import { counted, requestFor } from "./Requests.ts"

const origins = (value: string) => ConfigProvider.layer(ConfigProvider.fromUnknown({ CORS_ORIGINS: value }))
const preflightHeaders = { origin: "https://app.example.com", "access-control-request-method": "GET" }

describe("Cors steps", () => {
  it.effect("answer an allowed origin's preflight for an API route 204, and leave the rest to the pipeline", () =>
    Effect.gen(function* () {
      const step = yield* Cors.preflightStep
      const { runs, next } = counted()
      const api = yield* step(requestFor("/v1/vendors", { method: "OPTIONS", headers: preflightHeaders }), next)
      assert.strictEqual(api.status, 204)
      assert.strictEqual(api.headers["access-control-allow-origin"], "https://app.example.com")
      assert.strictEqual(runs.count, 0)
      const page = requestFor("/dashboard", { method: "OPTIONS", headers: preflightHeaders, dashboardMounted: true })
      assert.strictEqual((yield* step(page, next)).status, 200)
      const probe = requestFor("/health", { method: "OPTIONS", headers: preflightHeaders })
      assert.strictEqual((yield* step(probe, next)).status, 200)
      assert.strictEqual(runs.count, 2)
    }).pipe(Effect.provide(origins("https://app.example.com")))
  )

  it.effect("decorate answers for allowed origins, never a dashboard page's", () =>
    Effect.gen(function* () {
      const step = yield* Cors.decorateStep
      const { next } = counted()
      const api = yield* step(requestFor("/v1/vendors", { headers: { origin: "https://app.example.com" } }), next)
      assert.strictEqual(api.headers["access-control-allow-origin"], "https://app.example.com")
      assert.strictEqual(api.headers.vary, "Origin")
      const other = yield* step(requestFor("/v1/vendors", { headers: { origin: "https://evil.example" } }), next)
      assert.isUndefined(other.headers["access-control-allow-origin"])
      const page = yield* step(
        requestFor("/dashboard", { headers: { origin: "https://app.example.com" }, dashboardMounted: true }),
        next
      )
      assert.isUndefined(page.headers["access-control-allow-origin"])
      assert.isUndefined(page.headers.vary)
    }).pipe(Effect.provide(origins("https://app.example.com")))
  )
})

describe("Transfer step", () => {
  const big = HttpServerResponse.jsonUnsafe({ data: "x".repeat(5_000) })
  const transfer = Effect.provide(Transfer.step, DocsAssets.layer)

  it.effect("tags and compresses an API answer the client accepts compressed, and answers 304 to its tag", () =>
    Effect.gen(function* () {
      const step = yield* transfer
      const sent = yield* step(requestFor("/v1/vendors", { headers: { "accept-encoding": "br" } }), counted(big).next)
      assert.strictEqual(sent.headers["content-encoding"], "br")
      const etag = sent.headers.etag
      assert.isString(etag)
      const again = requestFor("/v1/vendors", { headers: { "accept-encoding": "br", "if-none-match": etag! } })
      assert.strictEqual((yield* step(again, counted(big).next)).status, 304)
    })
  )

  it.effect("compresses a dashboard page without tagging it, and leaves an unknown path as it is", () =>
    Effect.gen(function* () {
      const step = yield* transfer
      const headers = { "accept-encoding": "br" }
      const page = yield* step(requestFor("/dashboard", { headers, dashboardMounted: true }), counted(big).next)
      assert.strictEqual(page.headers["content-encoding"], "br")
      assert.isUndefined(page.headers.etag)
      assert.strictEqual(yield* step(requestFor("/nowhere", { headers }), counted(big).next), big)
    })
  )
})
