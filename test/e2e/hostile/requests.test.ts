/**
 * Hostile requests, replayed from a probe: keys pasted where they do not belong never reach the
 * audit log, a refused key that is known is attributed; a keyless flood from one address is
 * answered 429 after its allowance (and behind a trusted proxy, the address is the client's);
 * Node's own rejections come in the documented shape with a Request-Id and an audit entry; a
 * client that hangs up is recorded as 499, not as a server error.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { eventually } from "../../support/Eventually.ts"
import { insertFixture, keys } from "../../support/Fixtures.ts"
import { waitingForLock } from "../../support/LockWaits.ts"
import { abandon, exchange, rawGet } from "../../support/RawHttp.ts"
import { BaseUrl, layerWith, MetricsUrl } from "../../support/TestServer.ts"

const TestLayer = Layer.effectDiscard(insertFixture).pipe(
  Layer.provideMerge(
    layerWith({
      addressLimit: { perSecond: 1, burst: 20 },
      trustedProxies: ["127.0.0.2", "10.0.0.0/8"],
      limits: { headersTimeoutMillis: 600, requestTimeoutMillis: 1_000 }
    })
  )
)

interface AuditRow {
  readonly key_id: string | null
  readonly path: string
  readonly query: string
  readonly status: number
  readonly client_address: string | null
}

const auditOf = (requestId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<AuditRow>`
    SELECT key_id, path, query, status, client_address FROM audit_log WHERE request_id = ${requestId}`
  ).pipe(Effect.orDie)

const send = (target: string, headers: Record<string, string> = {}, from?: string) =>
  Effect.flatMap(BaseUrl, (base) => Effect.promise(() => rawGet(base, target, headers, "GET", from)))

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

const rawExchange = (bytes: string) => Effect.flatMap(BaseUrl, (base) => Effect.promise(() => exchange(base, bytes)))

const secret = keys.orgA.slice("pr_live_".length)

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("hostile requests", (it) => {
  it.effect("a key in the path or the query, plain or percent-encoded, never reaches the audit log", () =>
    Effect.gen(function* () {
      const encoded = keys.orgA.replaceAll("_", "%5F")
      const targets = [
        `/v1/receivables/${keys.orgA}`,
        `/v1/vendors;${keys.orgA}`,
        `/v1/receivables?api_key=${encoded}`,
        `/v1/receivables?api_key=${keys.orgA.replace("p", "%70")}`,
        `/v1/${encoded}/x`
      ]
      for (const target of targets) {
        const answer = yield* send(target, bearer(keys.orgA))
        const [row] = yield* auditOf(String(answer.headers["request-id"]))
        assert.isDefined(row, target)
        assert.notInclude(`${row!.path}?${row!.query}`, secret, target)
        assert.include(`${row!.path}?${row!.query}`, "[redacted]", target)
      }
    })
  )

  it.effect("a refused request with a revoked key is attributed to that key", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const answer = yield* send("/v1/vendors", bearer(keys.revoked))
      assert.strictEqual(answer.status, 401)
      const [row] = yield* auditOf(String(answer.headers["request-id"]))
      const [key] = yield* sql<{ id: string }>`
        SELECT id FROM api_keys WHERE key_hash = sha256(convert_to(${keys.revoked}, 'UTF8'))`
      assert.strictEqual(row!.key_id, key!.id)
    })
  )

  it.effect(
    "a keyless flood from one address is answered 429 after its allowance; behind a trusted proxy, per client",
    () =>
      Effect.gen(function* () {
        // Two clients behind the trusted proxy at 127.0.0.2: each has its own allowance.
        const proxied = (target: string, client: string) =>
          send(target, { "x-forwarded-for": `198.51.100.7, ${client}` }, "127.0.0.2")
        const statuses: Array<number> = []
        for (let i = 0; i < 40; i++) statuses.push((yield* proxied("/v1/vendors", "203.0.113.9")).status)
        assert.deepStrictEqual(statuses.slice(0, 20), Array(20).fill(401))
        assert.strictEqual(statuses[39], 429)
        assert.isAtLeast(statuses.filter((status) => status === 429).length, 15)
        const refused = yield* proxied("/v1/vendors", "203.0.113.9")
        assert.strictEqual(refused.status, 429)
        assert.isAtLeast(Number(refused.headers["retry-after"]), 1)
        assert.deepInclude(JSON.parse(refused.body).error, { type: "rate_limit_error", code: "rate_limited" })
        const [row] = yield* auditOf(String(refused.headers["request-id"]))
        assert.deepInclude(row, { status: 429, client_address: "203.0.113.9" })
        // Another client of the same proxy is not held back; a forged header from an untrusted peer is ignored.
        assert.strictEqual((yield* proxied("/v1/vendors", "203.0.113.10")).status, 401)
        const forged = yield* send("/v1/vendors", { "x-forwarded-for": "192.0.2.1" })
        const [forgedRow] = yield* auditOf(String(forged.headers["request-id"]))
        assert.match(forgedRow!.client_address ?? "", /127\.0\.0\.1/)
      })
  )

  it.effect("Node's own rejections are answered in the documented shape, with a Request-Id and an audit entry", () =>
    Effect.gen(function* () {
      const cases = [
        { bytes: "GET \\v1\\receivables HTTP/1.1\r\nHost: x\r\n\r\n", status: 400, code: "request_malformed" },
        { bytes: "FOO / HTTP/1.1\r\nHost: x\r\n\r\n", status: 400, code: "request_malformed" },
        {
          bytes: "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
          status: 400,
          code: "request_malformed"
        },
        {
          bytes: `GET /v1/vendors?${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
          status: 431,
          code: "request_headers_too_large"
        }
      ]
      for (const c of cases) {
        const received = yield* rawExchange(c.bytes)
        const [head = "", body = ""] = received.split("\r\n\r\n")
        assert.match(head, new RegExp(`^HTTP/1.1 ${c.status} `), c.bytes.slice(0, 40))
        const requestId = /request-id: (req_[0-9a-f]+)/.exec(head)?.[1]
        assert.isDefined(requestId, head)
        assert.deepInclude(JSON.parse(body).error, { type: "invalid_request_error", code: c.code })
        const rows = yield* auditOf(requestId!)
        assert.deepStrictEqual(
          rows.map((row) => row.status),
          [c.status]
        )
      }
      // Made-up methods are counted, under one label: a client cannot grow the metrics at will.
      for (const method of ["ZJSTGSPXJE", "QWERTYUIOP"]) yield* rawExchange(`${method} / HTTP/1.1\r\nHost: x\r\n\r\n`)
      const metrics = yield* Effect.flatMap(MetricsUrl, (url) => Effect.promise(() => rawGet(url, "/metrics")))
      assert.match(metrics.body, /http_requests_total\{route="unparsed",method="other",status="400"\} [3-9]/)
      assert.notInclude(metrics.body, "ZJSTGSPXJE")
    })
  )

  it.effect(
    "a client that sends its headers too slowly gets 408 in the documented shape, and its connection is closed",
    () =>
      Effect.gen(function* () {
        const started = Date.now()
        // Half a request line, then nothing: a slow client holding a connection.
        const received = yield* rawExchange("GET /v1/vendors HTTP/1.1\r\nHost: x\r\n")
        assert.isBelow(Date.now() - started, 5_000)
        const [head = "", body = ""] = received.split("\r\n\r\n")
        assert.match(head, /^HTTP\/1.1 408 /)
        assert.match(head, /request-id: req_[0-9a-f]+/)
        assert.deepInclude(JSON.parse(body).error, { type: "invalid_request_error", code: "request_timeout" })
      })
  )

  it.effect("a client that hangs up before its answer is recorded as 499, not as a server error", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const base = yield* BaseUrl
      // Hold the receivables so that the list waits, then hang up while it does.
      const locked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`LOCK TABLE receivables IN ACCESS EXCLUSIVE MODE`
            yield* Deferred.succeed(locked, undefined)
            yield* Deferred.await(release)
          })
        )
      )
      yield* Deferred.await(locked)
      const marker = randomUUID()
      let hangUp: () => void = () => undefined
      const hungUp = abandon(
        base,
        `/v1/receivables?verified_since=all&vendor_id=${marker}`,
        bearer(keys.orgA),
        new Promise<void>((resolve) => {
          hangUp = resolve
        }),
        "127.0.0.3"
      )
      yield* waitingForLock("the list waiting for the locked receivables")
      hangUp()
      yield* Effect.promise(() => hungUp)
      const statuses = sql<{ status: number }>`SELECT status FROM audit_log WHERE query LIKE ${`%${marker}%`}`
      // The entry does not wait for the list, which still waits for the lock.
      yield* eventually(
        "the audit entry of the request",
        Effect.map(statuses, (rows) => rows.length > 0)
      )
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      assert.deepStrictEqual(
        (yield* statuses).map((row) => row.status),
        [499]
      )
    })
  )
})
