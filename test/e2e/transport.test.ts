/**
 * How the API's answers travel, over a real socket: compression negotiated from Accept-Encoding
 * (weights, identity, q=0, the threshold, Vary, exact Content-Length), and strong ETags with 304
 * answers to If-None-Match that are audited and counted like any answer, a new tag once a sync
 * changed the data, and none on errors.
 */
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { type Fixture, insertFixture, keys } from "../support/Fixtures.ts"
import { type RawAnswer, rawGet } from "../support/RawHttp.ts"
import { BaseUrl, layerWith } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/TransportFixture") {}

const TestLayer = Layer.effect(TestFixture, insertFixture).pipe(
  Layer.provideMerge(layerWith({ rateLimit: { perSecond: 0.001, burst: 1000 } }))
)

const get = (path: string, headers: Record<string, string> = {}) =>
  Effect.flatMap(BaseUrl, (base) =>
    Effect.promise(() => rawGet(base, path, { authorization: `Bearer ${keys.orgA}`, ...headers }))
  )

const header = (answer: RawAnswer, name: string) => {
  const value = answer.headers[name]
  return typeof value === "string" ? value : undefined
}

// Big enough to compress (several KiB); the vendors list is far under the threshold.
const page = "/v1/receivables?verified_since=all&expand[]=history&expand[]=metadata"
const small = "/v1/vendors"

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("compression and ETags", (it) => {
  it.effect("answers in the coding the client weighs highest, with Vary and an exact Content-Length", () =>
    Effect.gen(function* () {
      const plain = yield* get(page)
      assert.strictEqual(plain.status, 200)
      assert.isUndefined(header(plain, "content-encoding"))
      assert.strictEqual(header(plain, "vary"), "Accept-Encoding")
      assert.strictEqual(Number(header(plain, "content-length")), plain.bytes.length)
      const body = JSON.parse(plain.body)
      const cases: ReadonlyArray<readonly [string, string | undefined]> = [
        ["gzip, br", "br"],
        ["gzip", "gzip"],
        ["br;q=0.5, gzip;q=0.9", "gzip"],
        ["br;q=0, gzip", "gzip"],
        ["BR", "br"],
        ["*", "br"],
        ["*;q=0.5, identity", undefined],
        ["identity", undefined],
        ["gzip;q=0, br;q=0", undefined],
        ["", undefined],
        ["deflate", undefined]
      ]
      for (const [acceptEncoding, expected] of cases) {
        const answer = yield* get(page, { "accept-encoding": acceptEncoding })
        assert.strictEqual(header(answer, "content-encoding"), expected, acceptEncoding)
        assert.strictEqual(header(answer, "vary"), "Accept-Encoding")
        assert.strictEqual(Number(header(answer, "content-length")), answer.bytes.length)
        const bytes =
          expected === "br"
            ? brotliDecompressSync(answer.bytes)
            : expected === "gzip"
              ? gunzipSync(answer.bytes)
              : answer.bytes
        assert.deepStrictEqual(JSON.parse(bytes.toString("utf8")).data, body.data, acceptEncoding)
        if (expected !== undefined) assert.isBelow(answer.bytes.length, plain.bytes.length / 2)
      }
    })
  )

  it.effect("leaves answers under the threshold uncompressed, still saying they vary", () =>
    Effect.gen(function* () {
      const answer = yield* get(small, { "accept-encoding": "br, gzip" })
      assert.strictEqual(answer.status, 200)
      assert.isBelow(answer.bytes.length, 1400)
      assert.isUndefined(header(answer, "content-encoding"))
      assert.strictEqual(header(answer, "vary"), "Accept-Encoding")
    })
  )

  it.effect("tags each representation strongly and answers a matching If-None-Match with an audited 304", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const f = yield* TestFixture
      const br = header(yield* get(page, { "accept-encoding": "br" }), "etag")!
      const gzip = header(yield* get(page, { "accept-encoding": "gzip" }), "etag")!
      assert.match(br, /^"[A-Za-z0-9_-]+-br"$/)
      assert.match(gzip, /^"[A-Za-z0-9_-]+-gzip"$/)
      // The receivables list names its watermark, a new instant on every read: never the same bytes.
      assert.notStrictEqual(header(yield* get(page, { "accept-encoding": "br" }), "etag"), br)

      const single = `/v1/receivables/${f.receivablesA[1]!.id}`
      const first = yield* get(single)
      const etag = header(first, "etag")!
      assert.match(etag, /^"[A-Za-z0-9_-]+"$/)
      assert.strictEqual(header(first, "cache-control"), "private, no-cache")
      const remaining = Number(header(first, "ratelimit-remaining"))
      for (const held of [etag, `W/${etag}`, `"x", ${etag}`, "*"]) {
        const again = yield* get(single, { "if-none-match": held })
        assert.strictEqual(again.status, 304, held)
        assert.strictEqual(again.bytes.length, 0)
        assert.strictEqual(header(again, "etag"), etag)
        assert.strictEqual(header(again, "vary"), "Accept-Encoding")
      }
      assert.strictEqual((yield* get(single, { "if-none-match": `"${etag.slice(1, -1)}-br"` })).status, 200)

      // A 304 is an answered request: audited with its status, and it spent the key's allowance.
      const revalidated = yield* get(single, { "if-none-match": etag })
      const [row] = yield* sql<{ status: number }>`
        SELECT status FROM audit_log WHERE request_id = ${header(revalidated, "request-id")!}`
      assert.strictEqual(row?.status, 304)
      assert.isBelow(Number(header(revalidated, "ratelimit-remaining")), remaining - 5)
    })
  )

  it.effect("answers a 304 with the representation's validators only, never the length or type of another body", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const paths = ["/v1/openapi.json", "/docs", `/v1/receivables/${f.receivablesA[0]!.id}`]
      for (const path of paths) {
        for (const coding of ["br", "gzip", "identity"]) {
          const full = yield* get(path, { "accept-encoding": coding })
          const revalidated = yield* get(path, { "accept-encoding": coding, "if-none-match": header(full, "etag")! })
          assert.strictEqual(revalidated.status, 304, `${path} ${coding}`)
          assert.strictEqual(header(revalidated, "etag"), header(full, "etag"))
          assert.strictEqual(header(revalidated, "cache-control"), header(full, "cache-control"))
          assert.isUndefined(header(revalidated, "content-length"), `${path} ${coding}`)
          assert.isUndefined(header(revalidated, "content-type"), `${path} ${coding}`)
          assert.isUndefined(header(revalidated, "content-encoding"), `${path} ${coding}`)
        }
      }
    })
  )

  it.effect("gives a new tag once a sync changed the answer", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const f = yield* TestFixture
      const path = `/v1/receivables/${f.receivablesA[0]!.id}`
      const before = yield* get(path)
      const etag = header(before, "etag")!
      assert.strictEqual((yield* get(path, { "if-none-match": etag })).status, 304)
      // What a sync writes when the portal's status text changed.
      yield* sql`UPDATE receivables SET portal_status = 'Approved', status = 'APPROVED', updated_at = now()
        WHERE id = ${f.receivablesA[0]!.id}`
      const after = yield* get(path, { "if-none-match": etag })
      assert.strictEqual(after.status, 200)
      assert.notStrictEqual(header(after, "etag"), etag)
      assert.strictEqual(JSON.parse(after.body).portal_status, "Approved")
    })
  )

  it.effect("gives errors no tag and never answers them 304", () =>
    Effect.gen(function* () {
      const cases = [
        { path: "/v1/receivables?limit=9999", headers: {}, status: 400 },
        { path: "/v1/receivables/rcv_nope", headers: {}, status: 404 },
        { path: "/v1/vendors", headers: { authorization: "Bearer pr_live_nope" }, status: 401 }
      ]
      for (const c of cases) {
        const answer = yield* get(c.path, { "if-none-match": "*", ...c.headers })
        assert.strictEqual(answer.status, c.status, c.path)
        assert.isUndefined(header(answer, "etag"), c.path)
      }
    })
  )
})
