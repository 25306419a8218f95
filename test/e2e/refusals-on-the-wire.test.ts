/**
 * Refusals for a limit, as a client receives them over a real socket: the key's rate limit, the
 * organization's, requests in flight (the key's and the organization's) and the allowance of an
 * address no key vouches for. Each answer is checked whole (status, every header, the body's
 * bytes), so that answering them from prebuilt bytes rather than through the error encoder
 * changes nothing a client sees; and each is in the audit log.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { insertFixture, keys } from "../support/Fixtures.ts"
import { type RawAnswer, rawGet } from "../support/RawHttp.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const secondKeyOfA = makeApiKey("pr", new Uint8Array(secretBytes).fill(43))

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

const get = (path: string, headers: Record<string, string> = {}, localAddress?: string) =>
  Effect.flatMap(BaseUrl, (base) => Effect.promise(() => rawGet(base, path, headers, "GET", localAddress)))

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

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

/** Every header but the two that differ per answer: the date, and the request's id (checked apart). */
const headersOf = (answer: RawAnswer) => {
  const { date, "request-id": requestId, ...rest } = answer.headers
  assert.isString(date)
  assert.match(String(requestId), /^req_[0-9a-f]+$/)
  return rest
}

/** The answer's audit entry: its status, key and path. */
const auditOf = (answer: RawAnswer) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ status: number; key_id: string | null; path: string }>`
      SELECT status, key_id, path FROM audit_log WHERE request_id = ${String(answer.headers["request-id"])}`
    assert.strictEqual(rows.length, 1)
    return rows[0]!
  })

const errorBody = (message: string) =>
  JSON.stringify({ error: { type: "rate_limit_error", code: "rate_limited", message } })

/**
 * The wait an answer names: 1,000 s at one request per 1,000 s, a second less for every second the
 * test took since the limit was spent (a loaded machine's), so the figures are read, then checked.
 */
const waitOf = (answer: RawAnswer) => {
  const seconds = Number(answer.headers["retry-after"])
  assert.isAtLeast(seconds, 990)
  assert.isAtMost(seconds, 1000)
  return seconds
}

const refusedHeaders = (body: string, extra: Record<string, string>) => ({
  connection: "keep-alive",
  "keep-alive": "timeout=5",
  "content-type": "application/json",
  "content-length": String(Buffer.byteLength(body)),
  ...extra
})

describe("refusals on the wire", () => {
  // Nothing refills during a test: a bucket holds exactly its burst.
  layer(
    withServer({
      rateLimit: { perSecond: 0.001, burst: 2 },
      orgRateLimit: { perSecond: 0.001, burst: 3 },
      addressLimit: { perSecond: 0.001, burst: 1 }
    }),
    { timeout: 60_000, excludeTestServices: true }
  )("rate limits", (it) => {
    it.effect("the key's, the organization's and an address's 429 are the documented answer, and audited", () =>
      Effect.gen(function* () {
        for (let i = 0; i < 2; i++) assert.strictEqual((yield* get("/v1/vendors", bearer(keys.orgA))).status, 200)
        const byKey = yield* get("/v1/vendors?limit=5", bearer(keys.orgA))
        const keyWait = waitOf(byKey)
        const keyBody = errorBody(`Too many requests with this key; retry after ${keyWait} s.`)
        assert.strictEqual(byKey.status, 429)
        assert.closeTo(Number(byKey.headers["ratelimit-reset"]), 2000, 10)
        assert.strictEqual(byKey.body, keyBody)
        assert.deepStrictEqual(
          headersOf(byKey),
          refusedHeaders(keyBody, {
            "ratelimit-limit": "2",
            "ratelimit-remaining": "0",
            "ratelimit-reset": byKey.headers["ratelimit-reset"] as string,
            "retry-after": String(keyWait)
          })
        )
        assert.deepInclude(yield* auditOf(byKey), { status: 429, path: "/v1/vendors" })
        assert.isNotNull((yield* auditOf(byKey)).key_id)

        assert.strictEqual((yield* get("/v1/vendors", bearer(secondKeyOfA))).status, 200)
        const byOrganization = yield* get("/v1/vendors", bearer(secondKeyOfA))
        const organizationWait = waitOf(byOrganization)
        const organizationBody = errorBody(
          `Too many requests of this organization, all its keys together (the organization's rate limit); retry after ${organizationWait} s.`
        )
        assert.strictEqual(byOrganization.status, 429)
        assert.closeTo(Number(byOrganization.headers["ratelimit-reset"]), 3000, 10)
        assert.strictEqual(byOrganization.body, organizationBody)
        assert.deepStrictEqual(
          headersOf(byOrganization),
          refusedHeaders(organizationBody, {
            "ratelimit-limit": "3",
            "ratelimit-remaining": "0",
            "ratelimit-reset": byOrganization.headers["ratelimit-reset"] as string,
            "retry-after": String(organizationWait)
          })
        )
        assert.deepInclude(yield* auditOf(byOrganization), { status: 429 })

        // No key: the address's allowance (one), spent by the first answer.
        assert.strictEqual((yield* get("/v1/vendors", {}, "127.0.0.21")).status, 401)
        const byAddress = yield* get("/v1/vendors", {}, "127.0.0.21")
        const addressWait = waitOf(byAddress)
        const addressBody = errorBody(
          `Too many requests without an accepted key from this address; retry after ${addressWait} s.`
        )
        assert.strictEqual(byAddress.status, 429)
        assert.strictEqual(byAddress.body, addressBody)
        assert.deepStrictEqual(
          headersOf(byAddress),
          refusedHeaders(addressBody, { "retry-after": String(addressWait) })
        )
        assert.deepInclude(yield* auditOf(byAddress), { status: 429, key_id: null })
      })
    )
  })

  layer(withServer({ inFlight: { perKey: 1, perOrganization: 1 } }), { timeout: 60_000, excludeTestServices: true })(
    "requests in flight",
    (it) => {
      it.effect("the key's and the organization's 429 are the documented answer, and audited", () =>
        Effect.gen(function* () {
          const released = yield* Deferred.make<void>()
          const lock = yield* stallReceivables(released)
          const first = yield* Effect.forkScoped(get("/v1/receivables", bearer(keys.orgA)))
          yield* waitersReach(1)
          const byKey = yield* get("/v1/vendors", bearer(keys.orgA))
          const byOrganization = yield* get("/v1/vendors", bearer(secondKeyOfA))
          yield* Deferred.succeed(released, undefined)
          yield* Fiber.join(lock)
          assert.strictEqual((yield* Fiber.join(first)).status, 200)

          const expected = [
            [byKey, "Too many requests with this key are being answered at once; retry after 1 s."],
            [byOrganization, "Too many requests of this organization are being answered at once; retry after 1 s."]
          ] as const
          for (const [answer, message] of expected) {
            const body = errorBody(message)
            assert.strictEqual(answer.status, 429)
            assert.strictEqual(answer.body, body)
            // The rate limit (out of reach here) still stands on the answer, with its own figures.
            const {
              "ratelimit-remaining": remaining,
              "ratelimit-reset": reset,
              ...headers
            } = headersOf(answer) as Record<string, string>
            assert.match(remaining ?? "", /^\d+$/)
            assert.match(reset ?? "", /^\d+$/)
            assert.deepStrictEqual(headers, refusedHeaders(body, { "ratelimit-limit": "1000000", "retry-after": "1" }))
            assert.deepInclude(yield* auditOf(answer), { status: 429, path: "/v1/vendors" })
          }
        }).pipe(Effect.scoped)
      )
    }
  )
})
