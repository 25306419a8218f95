/**
 * How the dashboard travels, over a real socket and read as the bytes sent: a page is compressed
 * in the coding the browser prefers (and still never kept: `no-store`), identity when it asks for
 * none; an asset is compressed once, tagged per coding, answered 304 to its tag, and kept for a
 * year. Pico alone is 83 KB; compressed it must be a small fraction of that.
 */
import { request } from "node:http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { assetPath } from "../../adapters/http/dashboard/frame/Assets.ts"
import { AccountsLive } from "../../app/Layers.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import { insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const TestLayer = Layer.mergeAll(serverLayer({ dashboard: true }), AccountsLive).pipe(
  Layer.provideMerge(TestDatabase.layer)
)

interface Raw {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly bytes: Buffer
}

/** A GET whose body is read as sent, with no decoding. */
const rawGet = (url: string, headers: Record<string, string>) =>
  new Promise<Raw>((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks) })
      )
    })
      .on("error", reject)
      .end()
  })

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard's transfer", (it) => {
  it.effect("a page is compressed as the browser prefers, and still kept by nobody", () =>
    Effect.gen(function* () {
      const fixture = yield* insertFixture
      const base = yield* BaseUrl
      const { client } = yield* signedIn(base, fixture.orgA, "member")
      const cookie = client.cookie ?? ""
      const plain = yield* run(() => rawGet(`${base}/dashboard/receivables`, { cookie }))
      assert.strictEqual(plain.status, 200)
      assert.isUndefined(plain.headers["content-encoding"])
      const html = plain.bytes.toString("utf8")
      for (const [coding, decode] of [
        ["br", brotliDecompressSync],
        ["gzip", gunzipSync]
      ] as const) {
        const packed = yield* run(() => rawGet(`${base}/dashboard/receivables`, { cookie, "accept-encoding": coding }))
        assert.strictEqual(packed.headers["content-encoding"], coding)
        assert.strictEqual(packed.headers.vary, "Accept-Encoding")
        assert.strictEqual(packed.headers["cache-control"], "no-store")
        assert.isBelow(packed.bytes.length, html.length / 3, coding)
        // The same page, but for the form's token and the times written into it.
        assert.include(decode(packed.bytes).toString("utf8"), "<h1>Receivables</h1>")
      }
    })
  )

  it.effect("an asset is compressed once, tagged per coding, 304 to its tag, kept for a year", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const url = `${base}${assetPath("pico.css")}`
      const plain = yield* run(() => rawGet(url, {}))
      assert.isAbove(plain.bytes.length, 80_000)
      const packed = yield* run(() => rawGet(url, { "accept-encoding": "gzip, br" }))
      assert.strictEqual(packed.headers["content-encoding"], "br")
      assert.isBelow(packed.bytes.length, 14_000)
      assert.deepStrictEqual(brotliDecompressSync(packed.bytes), plain.bytes)
      assert.strictEqual(packed.headers["cache-control"], "public, max-age=31536000, immutable")
      const tag = String(packed.headers.etag)
      assert.notStrictEqual(tag, String(plain.headers.etag))
      const again = yield* run(() => rawGet(url, { "accept-encoding": "br", "if-none-match": tag }))
      assert.strictEqual(again.status, 304)
      assert.strictEqual(again.bytes.length, 0)
      // The same bytes every time: compressed once.
      const second = yield* run(() => rawGet(url, { "accept-encoding": "br" }))
      assert.deepStrictEqual(second.bytes, packed.bytes)
    })
  )
})
