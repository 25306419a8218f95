/**
 * The operational endpoints under abuse, replayed from a probe: `/metrics` showed service-wide
 * counts to anyone on the public port, where it is now an unknown path like any other (its own
 * listener serves it), and `/ready`, unlimited, answered one address thousands of times a second:
 * it is limited per client address now, on a budget apart from the keyless API requests'.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as ReadyBudget from "../../../adapters/http/probes/ReadyBudget.ts"
import { insertFixture } from "../../support/Fixtures.ts"
import { rawGet } from "../../support/RawHttp.ts"
import { BaseUrl, layerWith, MetricsUrl } from "../../support/TestServer.ts"

// A keyless allowance of 2: a /ready that spent it would show as a 429 on the API at once.
const TestLayer = Layer.effectDiscard(insertFixture).pipe(
  Layer.provideMerge(layerWith({ addressLimit: { perSecond: 0.001, burst: 2 } }))
)

const getFrom = (from: string, target: string) =>
  Effect.flatMap(BaseUrl, (base) => Effect.promise(() => rawGet(base, target, {}, "GET", from)))

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("operational endpoints", (it) => {
  it.effect("/metrics on the public port is a 404 like any unknown path; the counts are on the metrics listener", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const metrics = yield* MetricsUrl
      const publicAnswer = yield* getFrom("127.0.0.11", "/metrics")
      assert.strictEqual(publicAnswer.status, 404)
      assert.deepInclude(JSON.parse(publicAnswer.body).error, {
        type: "invalid_request_error",
        code: "resource_missing"
      })
      assert.notInclude(publicAnswer.body, "http_requests_total")
      const [audited] = yield* sql<{ n: bigint }>`
        SELECT count(*) AS n FROM audit_log WHERE request_id = ${String(publicAnswer.headers["request-id"])}`
      assert.strictEqual(Number(audited!.n), 1)

      const scraped = yield* Effect.promise(() => rawGet(metrics, "/metrics"))
      assert.strictEqual(scraped.status, 200)
      assert.include(scraped.body, 'http_requests_total{route="unmatched",method="GET",status="404"}')
      const elsewhere = yield* Effect.promise(() => rawGet(metrics, "/v1/vendors"))
      assert.strictEqual(elsewhere.status, 404)
      assert.strictEqual(JSON.parse(elsewhere.body).error.code, "resource_missing")
      const written = yield* Effect.promise(() => rawGet(metrics, "/metrics", {}, "POST"))
      assert.deepStrictEqual([written.status, written.headers.allow], [405, "GET"])
    })
  )

  it.effect("/ready is limited per client address, in the documented shape, and spends no API allowance", () =>
    Effect.gen(function* () {
      const statuses: Array<number> = []
      let refused: { body: string; retryAfter: unknown } | undefined
      // Twice the burst, sent back to back: a refill of 2 a second cannot cover the second half.
      for (let i = 0; i < ReadyBudget.policy.burst * 2 && refused === undefined; i++) {
        const answer = yield* getFrom("127.0.0.12", "/ready")
        statuses.push(answer.status)
        if (answer.status === 429) refused = { body: answer.body, retryAfter: answer.headers["retry-after"] }
      }
      assert.isDefined(refused, `statuses: ${statuses.join(",")}`)
      assert.isAtLeast(statuses.filter((status) => status === 200).length, ReadyBudget.policy.burst)
      assert.deepInclude(JSON.parse(refused!.body).error, { type: "rate_limit_error", code: "rate_limited" })
      assert.match(String(refused!.retryAfter), /^[1-9]\d*$/)

      // Another address still gets its answer, and the refused one still has its keyless allowance.
      assert.strictEqual((yield* getFrom("127.0.0.13", "/ready")).status, 200)
      assert.strictEqual((yield* getFrom("127.0.0.12", "/v1/vendors")).status, 401)
    })
  )
})
