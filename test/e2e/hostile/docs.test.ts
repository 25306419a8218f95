/**
 * The reference page is 3 MB with its script: it is served compressed in the encoding the client
 * accepts, with an ETag that a revalidation answers with 304, and cache headers; so are the
 * OpenAPI document's bytes.
 */
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type RawAnswer, rawGet } from "../../support/RawHttp.ts"
import { BaseUrl, layer as serverLayer } from "../../support/TestServer.ts"

const get = (path: string, headers: Record<string, string>) =>
  Effect.flatMap(BaseUrl, (base) => Effect.promise(() => rawGet(base, path, headers)))

const header = (answer: RawAnswer, name: string) => {
  const value = answer.headers[name]
  return typeof value === "string" ? value : null
}

layer(serverLayer, { timeout: 60_000, excludeTestServices: true })(
  "the reference page and the OpenAPI document",
  (it) => {
    it.effect("are served compressed as negotiated, with an ETag, cache headers, and 304 on revalidation", () =>
      Effect.gen(function* () {
        for (const path of ["/docs", "/v1/openapi.json"]) {
          const plain = yield* get(path, { "accept-encoding": "identity" })
          assert.strictEqual(plain.status, 200)
          assert.isNull(header(plain, "content-encoding"))
          const etag = header(plain, "etag")
          assert.match(etag ?? "", /^"[A-Za-z0-9_-]+"$/)
          // The page is revalidated on every load (it names the release's script); the document is cached a while.
          assert.match(header(plain, "cache-control") ?? "", path === "/docs" ? /^no-cache$/ : /max-age=\d+/)

          const br = yield* get(path, { "accept-encoding": "gzip, deflate, br" })
          assert.strictEqual(header(br, "content-encoding"), "br")
          assert.isTrue(brotliDecompressSync(br.bytes).equals(plain.bytes))
          const gzip = yield* get(path, { "accept-encoding": "gzip" })
          assert.strictEqual(header(gzip, "content-encoding"), "gzip")
          assert.isTrue(gunzipSync(gzip.bytes).equals(plain.bytes))
          if (path === "/docs") assert.isBelow(br.bytes.length, plain.bytes.length / 3)

          // Each encoding is its own representation, with its own ETag (RFC 9110 8.8.3).
          const again = yield* get(path, { "if-none-match": `W/${header(br, "etag")}`, "accept-encoding": "br" })
          assert.strictEqual(again.status, 304)
          assert.strictEqual(again.bytes.length, 0)
          assert.strictEqual(header(again, "etag"), `${etag!.slice(0, -1)}-br"`)
          const otherEncoding = yield* get(path, { "if-none-match": etag!, "accept-encoding": "br" })
          assert.strictEqual(otherEncoding.status, 200)
          assert.strictEqual(header(br, "etag"), `${etag!.slice(0, -1)}-br"`)
          assert.strictEqual(header(gzip, "etag"), `${etag!.slice(0, -1)}-gzip"`)
        }
      })
    )
  }
)
