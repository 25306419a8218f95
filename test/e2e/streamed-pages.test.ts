/**
 * Large pages written as they are read, over a real socket: the bytes are those of the page
 * answered whole (identity, gzip and brotli), without the headers that need the whole body, in
 * pieces of about 256 KiB; another tenant is answered while such a page is made; a
 * client that does not read holds the server to a few reads of the page, not all of it; a client
 * that hangs up mid-answer stops the reads and is audited 499. A page being written holds its
 * key's place among the requests in flight until its end. Reads are counted by the spans of
 * the store's list read, through a tracer given to the server.
 */
import { type IncomingMessage, request } from "node:http"
import { connect, type Socket } from "node:net"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { assert, layer } from "@effect/vitest"
import { Context, Deferred, Duration, Effect, Fiber, Layer, Tracer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgReceivableStore from "../../adapters/postgres/PgReceivableStore.ts"
import * as Wire from "../../core/api/Wire.ts"
import { Receivables } from "../../core/receivables/services/Receivables.ts"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import { eventually } from "../support/Eventually.ts"
import { type Fixture, insertFixture, keys } from "../support/Fixtures.ts"
import { type RawAnswer, rawGet } from "../support/RawHttp.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

/**
 * Receivables of 60 KB of metadata each, as the heaviest portals send: 500 of them make a page of
 * 30 MB (10 reads of 50), well past what the sockets' kernel buffers hold, so the server's own
 * holding shows; the size cut is raised for it.
 */
const heavyRows = 500
const maxAnswerBytes = 64 * 1024 * 1024
const page = "/v1/receivables?verified_since=all&limit=500&expand[]=metadata"
const readsOfPage = heavyRows / 50

let storeReads = 0
const countingTracer = Tracer.make({
  span: (options) => {
    // A page's first read and the reads that continue it.
    if (options.name === "PgReceivableStore.listReceivables" || options.name === "PgReceivableStore.continuePage")
      storeReads++
    return new Tracer.NativeSpan(options)
  }
})

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/StreamedFixture") {}

const seedHeavy = Effect.gen(function* () {
  const fixture = yield* insertFixture
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents, currency,
      receivable_date, status, portal_status, metadata, detected_at, updated_at)
    SELECT r.org_id, 'rcv_' || md5('heavy' || n), r.integration_id, r.vendor_id, r.debtor_id, 'heavy-' || n, n, 'EUR',
      '2026-10-01', 'PENDING', 'Open', jsonb_build_object('note', repeat('x', 60000), 'n', n::text),
      now() - interval '1 hour' + n * interval '1 ms', now() - interval '1 hour'
    FROM generate_series(1, ${heavyRows}) AS n,
      (SELECT * FROM receivables WHERE org_id = ${fixture.orgA} ORDER BY id LIMIT 1) AS r`
  // A sync in flight holds the watermark still, so that two reads of the page say the same.
  yield* sql`UPDATE integrations SET sync_started_at = now() - interval '1 minute' WHERE org_id = ${fixture.orgA}`
  return fixture
})

const TestLayer = Layer.effect(TestFixture, seedHeavy).pipe(
  Layer.provideMerge(
    serverLayer({
      settings: { MAX_ANSWER_BYTES: String(maxAnswerBytes) },
      // One request of the key at a time: a page being written still holds its place.
      inFlight: { perKey: 1, perOrganization: 10 }
    }).pipe(Layer.provide(Layer.succeed(Tracer.Tracer, countingTracer)))
  ),
  Layer.provideMerge(Receivables.layerWith({ maxAnswerBytes }).pipe(Layer.provide(PgReceivableStore.layer))),
  Layer.provideMerge(TestDatabase.layer)
)

const get = (headers: Record<string, string> = {}, method = "GET") =>
  Effect.flatMap(BaseUrl, (base) =>
    Effect.promise(() => rawGet(base, page, { authorization: `Bearer ${keys.orgA}`, ...headers }, method))
  )

const decoded = (answer: RawAnswer) => {
  const coding = answer.headers["content-encoding"]
  return coding === "br"
    ? brotliDecompressSync(answer.bytes)
    : coding === "gzip"
      ? gunzipSync(answer.bytes)
      : answer.bytes
}

/** The page as the service answers it whole. */
const wholePage = Effect.gen(function* () {
  const { orgA } = yield* TestFixture
  const list = yield* (yield* Receivables).list(orgA as OrgId, {
    verifiedSince: "all",
    expand: ["metadata"],
    historyLimit: 10,
    page: 1,
    limit: 500
  })
  return Buffer.from(
    JSON.stringify(
      Wire.receivablePage({
        object: "list",
        data: list.items,
        hasMore: list.hasMore,
        totalCount: list.totalCount,
        nextVerifiedSince: list.nextVerifiedSince
      })
    ),
    "utf8"
  )
})

/** Sends the page's request and pauses its answer as soon as the head arrives: nothing more is read. */
const pausedClient = (base: string) =>
  new Promise<IncomingMessage>((resolve, reject) => {
    const url = new URL(base)
    const sent = request(
      { host: url.hostname, port: url.port, path: page, headers: { authorization: `Bearer ${keys.orgA}` } },
      (response) => {
        response.pause()
        resolve(response)
      }
    )
    sent.on("error", reject)
    sent.end()
  })

/**
 * Sends the page's request on a socket that reads nothing at all: its receive buffer is never
 * grown by reads (the kernel grows it as a reader keeps up), so what the server holds shows.
 */
const silentClient = (base: string) => {
  const url = new URL(base)
  const socket = connect(Number(url.port), url.hostname)
  socket.pause()
  socket.write(`GET ${page} HTTP/1.1\r\nHost: test\r\nConnection: close\r\nAuthorization: Bearer ${keys.orgA}\r\n\r\n`)
  return socket
}

/** Everything a socket receives until the server closes it. */
const readSocketToEnd = (socket: Socket) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Array<Buffer> = []
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("end", () => resolve(Buffer.concat(chunks)))
    socket.resume()
  })

/** The body of a chunked answer (headers and all, as `readSocketToEnd` gives it), chunk by chunk. */
const chunksOf = (answer: Buffer) => {
  const chunks: Array<Buffer> = []
  let at = answer.indexOf("\r\n\r\n") + 4
  for (let i = 0; i < 10_000; i++) {
    const lineEnd = answer.indexOf("\r\n", at)
    const size = Number.parseInt(answer.subarray(at, lineEnd).toString("latin1"), 16)
    if (size === 0) return chunks
    chunks.push(answer.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
  return assert.fail("more chunks than a page has")
}

/** Waits until the store's reads stop growing (the server waits on the socket), then counts them. */
const settledReads = (since: number) =>
  Effect.gen(function* () {
    let last = -1
    let steady = 0
    yield* eventually(
      "the store's reads settle",
      Effect.sync(() => {
        steady = storeReads === last ? steady + 1 : 0
        last = storeReads
        return steady >= 10
      }),
      { interval: Duration.millis(50) }
    )
    return storeReads - since
  })

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("pages written as they are read", (it) => {
  it.effect("are the bytes of the page answered whole, in identity, gzip and brotli, without ETag or length", () =>
    Effect.gen(function* () {
      const whole = yield* wholePage
      assert.isAbove(whole.length, 25_000_000)
      for (const coding of ["identity", "gzip", "br"]) {
        const answer = yield* get({ "accept-encoding": coding })
        assert.strictEqual(answer.status, 200, coding)
        assert.strictEqual(answer.headers["content-encoding"], coding === "identity" ? undefined : coding)
        assert.strictEqual(answer.headers["transfer-encoding"], "chunked", coding)
        assert.isUndefined(answer.headers["content-length"], coding)
        assert.isUndefined(answer.headers.etag, coding)
        assert.strictEqual(answer.headers.vary, "Accept-Encoding")
        assert.isTrue(decoded(answer).equals(whole), coding)
      }
    })
  )

  it.effect("leaves in pieces of about 256 KiB, never a read's 3 MB at once, each its own chunk", () =>
    Effect.gen(function* () {
      const whole = yield* wholePage
      const base = yield* BaseUrl
      const answer = yield* Effect.promise(() => readSocketToEnd(silentClient(base)))
      const chunks = chunksOf(answer)
      assert.isTrue(Buffer.concat(chunks).equals(whole))
      // A piece stops past 256 KiB of text, with the item that passed it (61 KB here).
      assert.isAtMost(Math.max(...chunks.map((chunk) => chunk.length)), 256 * 1024 + 62_000)
      assert.isAbove(chunks.length, whole.length / (256 * 1024 + 62_000))
    })
  )

  it.effect("another tenant's small request is answered while this tenant's page is being made", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const url = new URL(base)
      const firstBytes = yield* Deferred.make<void>()
      const received = { bytes: 0, ended: false }
      const heavy = yield* Effect.forkScoped(
        Effect.callback<void>((resume) => {
          const sent = request(
            { host: url.hostname, port: url.port, path: page, headers: { authorization: `Bearer ${keys.orgA}` } },
            (response) => {
              response.on("data", (chunk: Buffer) => {
                received.bytes += chunk.length
                Deferred.doneUnsafe(firstBytes, Effect.void)
              })
              response.on("end", () => {
                received.ended = true
                resume(Effect.void)
              })
            }
          )
          sent.end()
        })
      )
      yield* Deferred.await(firstBytes)
      const small = yield* Effect.promise(() => rawGet(base, "/v1/vendors", { authorization: `Bearer ${keys.orgB}` }))
      assert.strictEqual(small.status, 200)
      assert.isFalse(received.ended, `answered after all ${received.bytes} bytes of the page`)
      yield* Fiber.join(heavy)
      assert.isAbove(received.bytes, 25_000_000)
    }).pipe(Effect.scoped)
  )

  it.effect(
    "a client that does not read holds the server to a few reads of the page, and gets it all once it reads",
    () =>
      Effect.gen(function* () {
        const base = yield* BaseUrl
        const before = storeReads
        const socket = silentClient(base)
        const whilePaused = yield* settledReads(before)
        // Answered whole, the page would be read to its end (10 reads) before its first byte left;
        // written as read, the server stops once the sockets' buffers (a few MB) are full.
        assert.isAtMost(whilePaused, 4)
        const answer = yield* Effect.promise(() => readSocketToEnd(socket))
        assert.match(answer.subarray(0, 20).toString("latin1"), /^HTTP\/1\.1 200/)
        assert.include(answer.subarray(answer.length - 400).toString("utf8"), '"has_more":true,"total_count":508')
        assert.strictEqual(storeReads - before, readsOfPage)
      })
  )

  it.effect("a HEAD of such a page is answered and audited 200, its body never read", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const answer = yield* get({}, "HEAD")
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(answer.bytes.length, 0)
      const requestId = answer.headers["request-id"] as string
      const [entry] = yield* sql<{ status: number }>`SELECT status FROM audit_log WHERE request_id = ${requestId}`
      assert.strictEqual(entry?.status, 200)
    })
  )

  it.effect("a client that hangs up mid-answer stops the reads and is audited 499", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const sql = yield* SqlClient.SqlClient
      const before = storeReads
      const response = yield* Effect.promise(() => pausedClient(base))
      const requestId = response.headers["request-id"]
      assert.isString(requestId)
      response.destroy()
      yield* eventually(
        "the hang-up's audit entry",
        Effect.map(
          sql<{ status: number }>`SELECT status FROM audit_log WHERE request_id = ${requestId as string}`,
          (rows) => rows[0]?.status === 499
        )
      )
      assert.isBelow(yield* settledReads(before), readsOfPage)
    })
  )
})
