/**
 * Budgets where the work is held: requests in flight per key and per organization, and the
 * request deadline. The database is stalled for real (a transaction holds an exclusive lock on
 * the receivables), so requests that read receivables wait in PostgreSQL while the test looks.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { insertFixture, keys } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const secondKeyOfA = makeApiKey("pr", new Uint8Array(secretBytes).fill(41))

const get = (base: string, path: string, key: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } })
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text.length > 0 ? JSON.parse(text) : undefined }
  })

/** Holds an exclusive lock on the receivables until `released` completes; returns once it holds it. */
const stallReceivables = (released: Deferred.Deferred<void>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const held = yield* Deferred.make<void>()
    const fiber = yield* Effect.forkScoped(
      sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`LOCK TABLE receivables IN ACCESS EXCLUSIVE MODE`
          yield* Deferred.succeed(held, undefined)
          yield* Deferred.await(released)
        })
      )
    )
    yield* Deferred.await(held)
    return fiber
  })

/** Waits, bounded, until `count` queries wait for a lock on the receivables. */
const waitersReach = (count: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ waiting: number }>`
      SELECT count(*)::int AS waiting FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`
    if (row!.waiting < count) return yield* Effect.fail("not yet" as const)
  }).pipe(Effect.retry({ schedule: Schedule.spaced(Duration.millis(20)), times: 500 }), Effect.orDie)

const addSecondKey = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO api_keys (org_id, key_hash, display_start)
    SELECT org_id, sha256(convert_to(${secondKeyOfA}, 'UTF8')), 'pr_live_se' FROM api_keys
    WHERE key_hash = sha256(convert_to(${keys.orgA}, 'UTF8'))`
})

const withServer = (options: Parameters<typeof serverLayer>[0]) =>
  Layer.effectDiscard(Effect.andThen(insertFixture, addSecondKey)).pipe(
    Layer.provideMerge(serverLayer(options)),
    Layer.provideMerge(TestDatabase.layer)
  )

describe("requests in flight", () => {
  layer(withServer({ inFlight: { perKey: 1, perOrganization: 1 } }), { timeout: 60_000, excludeTestServices: true })(
    "per key and per organization",
    (it) => {
      it.effect(
        "past either allowance a request is refused at once with 429 and Retry-After; other tenants are served",
        () =>
          Effect.gen(function* () {
            const base = yield* BaseUrl
            const released = yield* Deferred.make<void>()
            const lock = yield* stallReceivables(released)
            const first = yield* Effect.forkScoped(get(base, "/v1/receivables", keys.orgA))
            yield* waitersReach(1)
            const sameKey = yield* get(base, "/v1/receivables", keys.orgA)
            assert.strictEqual(sameKey.status, 429)
            assert.strictEqual(sameKey.headers.get("retry-after"), "1")
            assert.strictEqual(sameKey.body.error.code, "rate_limited")
            assert.include(sameKey.body.error.message, "with this key")
            const sameOrganization = yield* get(base, "/v1/vendors", secondKeyOfA)
            assert.strictEqual(sameOrganization.status, 429)
            assert.include(sameOrganization.body.error.message, "of this organization")
            const otherTenant = yield* get(base, "/v1/vendors", keys.orgB)
            assert.strictEqual(otherTenant.status, 200)
            yield* Deferred.succeed(released, undefined)
            yield* Fiber.join(lock)
            assert.strictEqual((yield* Fiber.join(first)).status, 200)
            // What was held is given back: the key is served again.
            assert.strictEqual((yield* get(base, "/v1/receivables", keys.orgA)).status, 200)
          }).pipe(Effect.scoped)
      )
    }
  )
})

describe("the request deadline", () => {
  layer(withServer({ settings: { REQUEST_DEADLINE_SECONDS: "0.5" } }), { timeout: 60_000, excludeTestServices: true })(
    "a stalled database",
    (it) => {
      it.effect(
        "gives 503 service_unavailable with Retry-After once the deadline passes, audited with its real duration",
        () =>
          Effect.gen(function* () {
            const base = yield* BaseUrl
            const sql = yield* SqlClient.SqlClient
            const released = yield* Deferred.make<void>()
            const lock = yield* stallReceivables(released)
            const answer = yield* get(base, "/v1/receivables", keys.orgA)
            assert.strictEqual(answer.status, 503)
            assert.strictEqual(answer.headers.get("retry-after"), "2")
            assert.deepStrictEqual(answer.body.error.code, "service_unavailable")
            const requestId = answer.headers.get("request-id")
            const [entry] = yield* sql<{ status: number; duration_ms: number }>`
            SELECT status, duration_ms FROM audit_log WHERE request_id = ${requestId}`
            assert.strictEqual(entry?.status, 503)
            assert.isAtLeast(Number(entry?.duration_ms), 500)
            yield* Deferred.succeed(released, undefined)
            yield* Fiber.join(lock)
            assert.strictEqual((yield* get(base, "/v1/receivables", keys.orgA)).status, 200)
          }).pipe(Effect.scoped)
      )
    }
  )
})
