/**
 * The audit log over real HTTP and PostgreSQL: one entry per request, accepted or refused, with
 * the fields of docs/decisions.md and never the key; group commit under a burst; append-only; usage per
 * key and day; 503 when the log cannot be written; rate limits answering 429 with their headers.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { innermostMessage } from "../../adapters/postgres/Database.ts"
import { insertFixture, keys } from "../support/Fixtures.ts"
import { BaseUrl, layerWith, layer as serverLayer } from "../support/TestServer.ts"

const WithFixture = (server: typeof serverLayer) => Layer.effectDiscard(insertFixture).pipe(Layer.provideMerge(server))

const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  Effect.flatMap(BaseUrl, (base) =>
    Effect.promise(async () => {
      const response = await fetch(`${base}${path}`, { method, headers })
      await response.arrayBuffer()
      return response
    })
  )

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

interface AuditRow {
  readonly request_id: string
  readonly key_id: string | null
  readonly org_id: string | null
  readonly method: string
  readonly path: string
  readonly query: string
  readonly status: number
  readonly duration_ms: number
  readonly client_address: string | null
}

const auditOf = (requestId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<AuditRow>`SELECT * FROM audit_log WHERE request_id = ${requestId}`, (rows) => rows)
  ).pipe(Effect.orDie)

layer(WithFixture(serverLayer), { timeout: 60_000, excludeTestServices: true })("the audit log", (it) => {
  it.effect("holds one entry per request, accepted or refused, never with the key", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const cases = [
        { path: "/v1/vendors", headers: bearer(keys.orgA), status: 200, keyed: true },
        { path: "/v1/vendors", headers: {}, status: 401, keyed: false },
        { path: "/v1/vendors", headers: bearer("pr_live_notakey"), status: 401, keyed: false },
        // A revoked key is known: its use is attributed to it.
        { path: "/v1/vendors", headers: bearer(keys.revoked), status: 401, keyed: true },
        { path: "/v1/receivables?limit=9999", headers: bearer(keys.orgA), status: 400, keyed: true },
        { path: `/v1/receivables?api_key=${keys.orgA}`, headers: bearer(keys.orgA), status: 400, keyed: true },
        { path: "/v1/nowhere", headers: bearer(keys.orgA), status: 404, keyed: false },
        { path: "/v1/vendors", headers: bearer(keys.orgA), status: 405, keyed: false, method: "DELETE" }
      ]
      for (const c of cases) {
        const response = yield* get(c.path, c.headers, c.method)
        assert.strictEqual(response.status, c.status, c.path)
        const requestId = response.headers.get("request-id")!
        const rows = yield* auditOf(requestId)
        assert.strictEqual(rows.length, 1, c.path)
        const row = rows[0]!
        assert.strictEqual(row.status, c.status)
        assert.strictEqual(row.method, c.method ?? "GET")
        assert.strictEqual(row.path, c.path.split("?")[0])
        assert.strictEqual(row.key_id !== null, c.keyed, c.path)
        assert.strictEqual(row.org_id !== null, c.keyed, c.path)
        assert.isAtLeast(row.duration_ms, 0)
        assert.match(row.client_address ?? "", /127\.0\.0\.1/)
      }
      const everything = yield* sql<{ row: string }>`SELECT row_to_json(a)::text AS row FROM audit_log a`
      for (const { row } of everything) {
        for (const key of Object.values(keys)) assert.notInclude(row, key.slice(12))
      }
      const [leaked] = yield* sql<{ query: string }>`SELECT query FROM audit_log WHERE query LIKE 'api_key=%'`
      assert.strictEqual(leaked!.query, "api_key=pr_live_[redacted]")
    })
  )

  it.effect("a burst of concurrent requests leaves exactly one entry each", () =>
    Effect.gen(function* () {
      const responses = yield* Effect.forEach(
        Array.from({ length: 200 }, (_, i) => i),
        (i) => get(i % 3 === 0 ? "/v1/debtors" : "/v1/receivables?verified_since=all&limit=5", bearer(keys.orgA)),
        { concurrency: 50 }
      )
      const ids = responses.map((r) => r.headers.get("request-id")!)
      assert.strictEqual(new Set(ids).size, 200)
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ request_id: string }>`
        SELECT request_id FROM audit_log WHERE request_id = ANY(${sql.literal(`ARRAY[${ids.map((id) => `'${id}'`).join(",")}]`)})`
      assert.strictEqual(rows.length, 200)
    })
  )

  it.effect("counts usage per key and day, and the key's last use", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const before = yield* sql<{ ok: bigint; client: bigint }>`
        SELECT coalesce(sum(requests_2xx), 0) AS ok, coalesce(sum(requests_4xx), 0) AS client
        FROM api_key_usage u JOIN api_keys k ON k.id = u.key_id WHERE k.org_id IN (SELECT org_id FROM api_keys WHERE revoked_at IS NULL)
          AND u.key_id = (SELECT id FROM api_keys WHERE key_hash = sha256(convert_to(${keys.orgB}, 'UTF8')))`
      yield* get("/v1/vendors", bearer(keys.orgB))
      yield* get("/v1/vendors", bearer(keys.orgB))
      yield* get("/v1/vendors?bad=1", bearer(keys.orgB))
      const after = yield* sql<{ ok: bigint; client: bigint; last_used_at: Date | null }>`
        SELECT sum(requests_2xx) AS ok, sum(requests_4xx) AS client, max(k.last_used_at) AS last_used_at
        FROM api_key_usage u JOIN api_keys k ON k.id = u.key_id
        WHERE k.key_hash = sha256(convert_to(${keys.orgB}, 'UTF8'))`
      assert.strictEqual(Number(after[0]!.ok) - Number(before[0]!.ok), 2)
      assert.strictEqual(Number(after[0]!.client) - Number(before[0]!.client), 1)
      assert.isAbove(after[0]!.last_used_at!.getTime(), Date.now() - 60_000)
    })
  )

  it.effect("is append-only", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      for (const statement of [
        sql`UPDATE audit_log SET status = 200`,
        sql`DELETE FROM audit_log`,
        sql`TRUNCATE audit_log`
      ]) {
        const error = yield* Effect.flip(statement)
        assert.match(innermostMessage(error), /audit_log is append-only/)
      }
    })
  )

  it.effect("answers 503 rather than leave a request unrecorded", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`ALTER TABLE audit_log ADD CONSTRAINT audit_down CHECK (false) NOT VALID`
      const response = yield* Effect.flatMap(BaseUrl, (base) =>
        Effect.promise(() => fetch(`${base}/v1/vendors`, { headers: bearer(keys.orgA) }))
      )
      const body = (yield* Effect.promise(() => response.json())) as { error: Record<string, string> }
      yield* sql`ALTER TABLE audit_log DROP CONSTRAINT audit_down`
      assert.strictEqual(response.status, 503)
      assert.deepStrictEqual(Object.keys(body.error).sort(), ["code", "message", "type"])
      assert.strictEqual(body.error.code, "service_unavailable")
      assert.strictEqual((yield* get("/v1/vendors", bearer(keys.orgA))).status, 200)
    })
  )
})

layer(WithFixture(layerWith({ rateLimit: { perSecond: 0.5, burst: 3 } })), {
  timeout: 60_000,
  excludeTestServices: true
})("rate limits", (it) => {
  it.effect("a key over its limit gets 429 with Retry-After; every answer carries RateLimit-*", () =>
    Effect.gen(function* () {
      const answers = yield* Effect.forEach([1, 2, 3, 4], () => get("/v1/vendors", bearer(keys.orgA)))
      assert.deepStrictEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 429]
      )
      assert.deepStrictEqual(
        answers.map((a) => a.headers.get("ratelimit-remaining")),
        ["2", "1", "0", "0"]
      )
      assert.strictEqual(answers[0]!.headers.get("ratelimit-limit"), "3")
      assert.strictEqual(answers[3]!.headers.get("retry-after"), "2")
      assert.isNull(answers[0]!.headers.get("retry-after"))
      // Another key has its own bucket.
      assert.strictEqual((yield* get("/v1/vendors", bearer(keys.orgB))).status, 200)
      const rows = yield* auditOf(answers[3]!.headers.get("request-id")!)
      assert.strictEqual(rows[0]!.status, 429)
    })
  )
})
