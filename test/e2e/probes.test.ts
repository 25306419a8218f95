/** `/health` and `/ready` over real HTTP: public, unaudited, and `/ready` says why it is not. */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { latestMigrationId } from "../../adapters/postgres/Migrations.ts"
import { BaseUrl, MetricsUrl, layer as serverLayer } from "../support/TestServer.ts"

const get = (path: string) =>
  Effect.flatMap(BaseUrl, (base) =>
    Effect.promise(async () => {
      const response = await fetch(`${base}${path}`)
      return { status: response.status, body: (await response.json()) as Record<string, string> }
    })
  )

layer(serverLayer, { timeout: 60_000, excludeTestServices: true })("probes", (it) => {
  it.effect("/health and /ready answer without a key and are not audited", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      assert.deepStrictEqual(yield* get("/health"), { status: 200, body: { status: "ok" } })
      assert.deepStrictEqual(yield* get("/ready"), { status: 200, body: { status: "ready" } })
      const [row] = yield* sql<{ n: bigint }>`SELECT count(*) AS n FROM audit_log WHERE path IN ('/health', '/ready')`
      assert.strictEqual(Number(row!.n), 0)
    })
  )

  it.effect("/ready is 503 with the reason while the schema is behind the build", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [kept] = yield* sql<{ name: string; created_at: Date }>`
        DELETE FROM schema_migrations WHERE migration_id = ${latestMigrationId} RETURNING name, created_at`
      const answer = yield* get("/ready")
      yield* sql`INSERT INTO schema_migrations (migration_id, name, created_at)
        VALUES (${latestMigrationId}, ${kept!.name}, ${kept!.created_at})`
      assert.strictEqual(answer.status, 503)
      assert.match(answer.body.reason!, new RegExp(`this build needs ${latestMigrationId}`))
      assert.strictEqual((yield* get("/ready")).status, 200)
    })
  )

  it.effect(
    "the metrics listener's /metrics exposes requests by route and status, latency, overdue pairs and the audit queue",
    () =>
      Effect.gen(function* () {
        const base = yield* BaseUrl
        yield* Effect.promise(() => fetch(`${base}/v1/vendors`))
        yield* Effect.promise(() => fetch(`${base}/v1/receivables/rcv_unknown`))
        const metrics = yield* MetricsUrl
        const text = yield* Effect.promise(() => fetch(`${metrics}/metrics`).then((r) => r.text()))
        assert.include(text, 'http_requests_total{route="/v1/vendors",method="GET",status="401"} 1')
        assert.include(text, 'http_requests_total{route="/v1/receivables/:id",method="GET",status="401"} 1')
        assert.match(text, /http_request_duration_seconds_bucket\{route="\/v1\/vendors",le="\+Inf"\} 1/)
        assert.match(text, /^sync_pairs_overdue 0$/m)
        assert.match(text, /^audit_queue_depth \d+$/m)
        assert.notInclude(text, "rcv_unknown")
      })
  )
})
