import { assert, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { connector } from "../../../adapters/portals/http-json/HttpJsonConnector.ts"
import * as HttpConnector from "../../../adapters/portals/portal-client/HttpConnector.ts"
import {
  nextLink,
  type PortalRequest,
  requestJson,
  retryAfterSeconds
} from "../../../adapters/portals/portal-client/PortalHttp.ts"
import { pairToFetch, sampleDocuments } from "../../support/conformance/Conformance.ts"
import { json, type MockAnswer, mockPortal } from "../../support/MockPortal.ts"
import { freePort } from "../../support/ports.ts"
import { configFor } from "./fixtures/http-json.ts"

const notation = { decimalSeparator: ".", groupsThousands: false } as const
const item = { id: 7, number: "INV-7", total: "10.00", currency: "USD", issued_on: "2026-11-02", state: "open" }

layer(HttpConnector.layer)("http-json", (it) => {
  it.effect("sends bearer and basic credentials from their secret references", () =>
    Effect.gen(function* () {
      const seen: Array<string | undefined> = []
      const portal = yield* mockPortal((request) => {
        seen.push(request.headers.authorization)
        return json({ data: [item] })
      })
      const base = { ...configFor(portal.origin, "page", notation), pagination: { style: "none" } }
      const environment = { PORTAL_TOKEN: "tok-123", PORTAL_PASSWORD: "pa:ss" }
      yield* Stream.runCollect(
        connector.fetch(pairToFetch({ ...base, auth: { type: "bearer", token: { env: "PORTAL_TOKEN" } } }, environment))
      )
      yield* Stream.runCollect(
        connector.fetch(
          pairToFetch(
            { ...base, auth: { type: "basic", username: "acme", password: { env: "PORTAL_PASSWORD" } } },
            environment
          )
        )
      )
      assert.deepStrictEqual(seen, ["Bearer tok-123", `Basic ${Buffer.from("acme:pa:ss").toString("base64")}`])
    })
  )

  it.effect(
    "follows a redirect within the portal's origin, and keeps other item fields as metadata, nested ones as JSON",
    () =>
      Effect.gen(function* () {
        const portal = yield* mockPortal((request, url) =>
          url.pathname === "/api/v2/invoices"
            ? { status: 301, headers: { location: "/api/v3/invoices" } }
            : request.headers["x-api-key"] === "k"
              ? json({
                  data: [{ ...item, payment_terms: "NET30", buyer: { name: "Globex", tags: ["a"] }, priority: 2 }]
                })
              : { status: 401 }
        )
        const config = { ...configFor(portal.origin, "page", notation), pagination: { style: "none" } }
        const [document] = yield* Stream.runCollect(connector.fetch(pairToFetch(config, { GLOBEX_PORTAL_KEY: "k" })))
        assert.deepStrictEqual(document!.metadata, {
          payment_terms: "NET30",
          buyer: '{"name":"Globex","tags":["a"]}',
          priority: "2"
        })
        assert.deepStrictEqual(
          portal.requests.map((url) => url.pathname),
          ["/api/v2/invoices", "/api/v3/invoices"]
        )
      })
  )

  it.effect("stops a portal that ignores its paging parameters instead of polling forever", () =>
    Effect.gen(function* () {
      const documents = sampleDocuments(3, [["open", "PENDING"]], notation)
      const portal = yield* mockPortal(() =>
        json({ data: [0, 1, 2].map((i) => ({ ...item, id: Number(documents.at(i).key) })) })
      )
      const config = {
        ...configFor(portal.origin, "page", notation),
        pagination: { style: "page", pageParam: "page", sizeParam: "size", size: 3 }
      }
      const failure = yield* Effect.flip(
        Stream.runCollect(connector.fetch(pairToFetch(config, { GLOBEX_PORTAL_KEY: "k" })))
      )
      assert.deepStrictEqual([failure.retryable, portal.requests.length], [false, 2])
      assert.match(failure.message, /repeats earlier items/)
    })
  )

  it("reads Retry-After in seconds or as a date, and the next link among several", () => {
    assert.strictEqual(retryAfterSeconds("120"), 120)
    assert.strictEqual(retryAfterSeconds("Sat, 21 Nov 2026 12:01:00 GMT", Date.parse("2026-11-21T12:00:00Z")), 60)
    assert.isUndefined(retryAfterSeconds("soon"))
    const base = new URL("https://portal.example/api/invoices?page=1")
    assert.strictEqual(
      nextLink('<https://portal.example/api/invoices?page=1>; rel="first", </api/invoices?page=2>; rel="next"', base)
        ?.href,
      "https://portal.example/api/invoices?page=2"
    )
    assert.isUndefined(nextLink('<https://portal.example/api/invoices?page=1>; rel="prev"', base))
  })
})

layer(HttpConnector.layer)("the portal client", (it) => {
  const secret = "Bearer tok-s3cret-42"
  const get = (origin: string, path: string, extra: Partial<PortalRequest> = {}) =>
    requestJson(origin, { url: new URL(path, origin), headers: { authorization: secret }, timeoutSeconds: 5, ...extra })
  /** A portal answering every request the same way, and how it fails. */
  const failureOf = (answer: MockAnswer | undefined, extra: Partial<PortalRequest> = {}) =>
    Effect.gen(function* () {
      const portal = yield* mockPortal(() => answer)
      const failure = yield* Effect.flip(get(portal.origin, "/api/invoices?page=2", extra))
      assert.notInclude(failure.message, "s3cret")
      return { origin: portal.origin, failure }
    })

  it.effect("refuses a redirect to another origin, and that origin never sees the request nor its credentials", () =>
    Effect.gen(function* () {
      const elsewhere = yield* mockPortal(() => json({ stolen: true }))
      const portal = yield* mockPortal(() => ({ status: 302, headers: { location: `${elsewhere.origin}/collect` } }))
      const failure = yield* Effect.flip(get(portal.origin, "/api/invoices"))
      assert.deepStrictEqual(
        [failure.retryable, failure.message],
        [false, `refused to contact ${elsewhere.origin}: this integration only contacts ${portal.origin}`]
      )
      // A first URL elsewhere is refused as well, before anything is sent.
      const direct = yield* Effect.flip(
        requestJson(portal.origin, { url: new URL("/x", elsewhere.origin), timeoutSeconds: 5 })
      )
      assert.isFalse(direct.retryable)
      assert.deepStrictEqual([portal.requests.length, elsewhere.requests.length], [1, 0])
    })
  )

  it.effect("follows redirects within the origin with the method, body and credentials, at most 5 of them", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const traced: Array<string | Array<string> | undefined> = []
      const portal = yield* mockPortal((request, url, body) => {
        seen.push(`${request.method} ${url.pathname} ${body} ${request.headers.authorization}`)
        traced.push(request.headers.traceparent ?? request.headers.b3)
        const hop = Number(url.pathname.slice(1))
        return url.pathname === "/loop"
          ? { status: 302, headers: { location: "/loop" } }
          : hop < 2
            ? { status: 307, headers: { location: `/${hop + 1}` } }
            : json({ ok: true })
      })
      const answer = yield* get(portal.origin, "/0", { method: "POST", body: "a=1" })
      assert.deepStrictEqual(answer.body, { ok: true })
      assert.deepStrictEqual(seen, [`POST /0 a=1 ${secret}`, `POST /1 a=1 ${secret}`, `POST /2 a=1 ${secret}`])
      // Nothing of ours beyond the request itself: no trace context goes to a portal.
      assert.deepStrictEqual(traced, [undefined, undefined, undefined])
      const looping = yield* Effect.flip(get(portal.origin, "/loop"))
      assert.deepStrictEqual(
        [looping.retryable, looping.message],
        [false, `${portal.origin}/loop redirects more than 5 times`]
      )
      assert.strictEqual(portal.requests.filter((url) => url.pathname === "/loop").length, 6)
    })
  )

  it.effect("429 and 503 are retryable after the portal's Retry-After, in seconds or as a date; so is 408", () =>
    Effect.gen(function* () {
      const limited = yield* failureOf({ status: 429, headers: { "retry-after": "30" } })
      assert.deepStrictEqual(
        [limited.failure.retryable, limited.failure.retryAfterSeconds, limited.failure.message],
        [true, 30, `${limited.origin}/api/invoices is rate limiting us (429)`]
      )
      const down = yield* failureOf({
        status: 503,
        headers: { "retry-after": new Date(Date.now() + 120_000).toUTCString() }
      })
      assert.isTrue(down.failure.retryable)
      assert.approximately(down.failure.retryAfterSeconds ?? 0, 120, 2)
      assert.strictEqual(down.failure.message, `${down.origin}/api/invoices answered 503`)
      const timedOut = yield* failureOf({ status: 408 })
      assert.deepStrictEqual([timedOut.failure.retryable, timedOut.failure.retryAfterSeconds], [true, undefined])
    })
  )

  it.effect("refused credentials and other 4xx are permanent, whatever Retry-After says", () =>
    Effect.gen(function* () {
      for (const [status, why] of [
        [401, "refused the credentials (401)"],
        [403, "refused the credentials (403)"],
        [404, "answered 404"]
      ] as const) {
        const { origin, failure } = yield* failureOf({ status, headers: { "retry-after": "5" }, json: { error: "no" } })
        assert.deepStrictEqual(
          [failure.retryable, failure.retryAfterSeconds, failure.message],
          [false, undefined, `${origin}/api/invoices ${why}`]
        )
      }
    })
  )

  it.effect("a portal that does not answer in time, or cannot be reached, is retryable", () =>
    Effect.gen(function* () {
      const silent = yield* failureOf(undefined, { timeoutSeconds: 1 })
      assert.deepStrictEqual(
        [silent.failure.retryable, silent.failure.message],
        [true, `${silent.origin}/api/invoices did not answer within 1 s`]
      )
      const port = yield* Effect.promise(freePort)
      const closed = yield* Effect.flip(get(`http://127.0.0.1:${port}`, "/api/invoices"))
      assert.deepStrictEqual(
        [closed.retryable, closed.message],
        [true, `http://127.0.0.1:${port} cannot be reached (ECONNREFUSED)`]
      )
    })
  )
})
