/**
 * The pipeline's own refusals: the path decided once (404 for a path that names no route), the
 * address allowance (429 before anything runs, one request spent per answer no key vouched for),
 * and the rate-limit headers of a counted key.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import fc from "fast-check"
import * as AddressBudget from "../../../../adapters/http/pipeline/AddressBudget.ts"
import * as AddressLimiter from "../../../../adapters/http/pipeline/AddressLimiter.ts"
import * as ErrorResponse from "../../../../adapters/http/pipeline/ErrorResponse.ts"
import * as RateLimitHeaders from "../../../../adapters/http/pipeline/RateLimitHeaders.ts"
import * as Refusals from "../../../../adapters/http/pipeline/Refusals.ts"
import * as RequestIdHeader from "../../../../adapters/http/pipeline/RequestIdHeader.ts"
import * as UnknownPath from "../../../../adapters/http/pipeline/UnknownPath.ts"
import * as VerifiedSessions from "../../../../adapters/http/pipeline/VerifiedSessions.ts"
import { RateLimited } from "../../../../core/api/Errors.ts"
import { bodyOf, counted, requestFor, textOf } from "./Requests.ts"

describe("UnknownPath", () => {
  it.effect("answers a path that names no route 404 resource_missing, without the rest", () =>
    Effect.gen(function* () {
      const { runs, next } = counted()
      const answer = yield* UnknownPath.step(requestFor("/v1/receivables/", { method: "DELETE" }), next)
      assert.strictEqual(answer.status, 404)
      assert.deepInclude((bodyOf(answer) as { error: object }).error, { code: "resource_missing" })
      assert.strictEqual(runs.count, 0)
    })
  )

  it.effect("lets a route's path through, whatever the method", () =>
    Effect.gen(function* () {
      const { runs, next } = counted()
      const answer = yield* UnknownPath.step(requestFor("/v1/vendors?x=1", { method: "POST" }), next)
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(runs.count, 1)
    })
  )
})

const budget = (burst: number) =>
  Effect.flatMap(AddressBudget.step, (step) => Effect.succeed(step)).pipe(
    Effect.provide([
      Layer.effect(AddressLimiter.AddressLimiter, AddressLimiter.make({ perSecond: 0.001, burst })),
      VerifiedSessions.layer
    ])
  )

describe("AddressBudget", () => {
  it.effect("spends one request per answer no key vouched for, then refuses with 429 and Retry-After", () =>
    Effect.gen(function* () {
      const step = yield* budget(2)
      const { runs, next } = counted()
      const statuses: Array<number> = []
      for (let i = 0; i < 4; i++) statuses.push((yield* step(requestFor("/v1/vendors"), next)).status)
      assert.deepStrictEqual(statuses, [200, 200, 429, 429])
      assert.strictEqual(runs.count, 2)
      const refused = yield* step(requestFor("/v1/vendors"), next)
      assert.match(refused.headers["retry-after"] ?? "", /^\d+$/)
      assert.deepInclude((bodyOf(refused) as { error: object }).error, { code: "rate_limited" })
    })
  )

  it.effect("spends nothing for a request a live key vouched for, and limits no unknown address", () =>
    Effect.gen(function* () {
      const step = yield* budget(1)
      const { next } = counted()
      for (let i = 0; i < 3; i++) {
        const request = requestFor("/v1/vendors")
        const vouched = Effect.tap(next, () => Effect.sync(() => (request.authenticated = true)))
        assert.strictEqual((yield* step(request, vouched)).status, 200)
      }
      for (let i = 0; i < 3; i++) {
        assert.strictEqual((yield* step(requestFor("/v1/vendors", { clientAddress: null }), next)).status, 200)
      }
    })
  )

  it.effect("counts the addresses of one IPv6 /64 as one client", () =>
    Effect.gen(function* () {
      const step = yield* budget(2)
      const { next } = counted()
      const statuses: Array<number> = []
      for (const host of ["1", "2", "3"]) {
        statuses.push((yield* step(requestFor("/v1/vendors", { clientAddress: `2001:db8:1:2::${host}` }), next)).status)
      }
      assert.deepStrictEqual(statuses, [200, 200, 429])
      const otherNetwork = yield* step(requestFor("/v1/vendors", { clientAddress: "2001:db8:1:3::1" }), next)
      assert.strictEqual(otherNetwork.status, 200)
    })
  )

  it.effect("refuses a dashboard page in plain text, not the API's JSON", () =>
    Effect.gen(function* () {
      const step = yield* budget(1)
      const { next } = counted()
      const page = () => requestFor("/dashboard/sign-in", { dashboardMounted: true })
      yield* step(page(), next)
      const refused = yield* step(page(), next)
      assert.strictEqual(refused.status, 429)
      assert.match(textOf(refused), /^Too many requests: try again in \d+ seconds\.$/)
      assert.strictEqual(refused.headers["cache-control"], "no-store")
    })
  )
})

describe("Refusals.rateLimited", () => {
  const encoded: Record<Refusals.Limit, (seconds: number) => RateLimited> = {
    key: RateLimited.of,
    organization: RateLimited.organization,
    keyInFlight: (seconds) => RateLimited.inFlight("key", seconds),
    organizationInFlight: (seconds) => RateLimited.inFlight("organization", seconds),
    address: RateLimited.address
  }
  const limits = Object.keys(encoded) as Array<Refusals.Limit>

  it("is, byte for byte, the answer the error encoder gives, for every limit and wait", () =>
    fc.assert(
      fc.property(fc.constantFrom(...limits), fc.integer({ min: 1, max: 10_000_000 }), (limit, seconds) => {
        const prebuilt = Refusals.rateLimited(limit, seconds)
        const viaEncoder = ErrorResponse.of(RateLimited, encoded[limit](seconds), 429)
        assert.strictEqual(prebuilt.status, 429)
        assert.deepStrictEqual(prebuilt.headers, viaEncoder.headers)
        assert.strictEqual(textOf(prebuilt), textOf(viaEncoder))
        assert.strictEqual(
          prebuilt.body._tag === "Uint8Array" ? prebuilt.body.contentType : undefined,
          viaEncoder.body._tag === "Uint8Array" ? viaEncoder.body.contentType : undefined
        )
      }),
      { numRuns: 500 }
    ))

  it("answers a refusal met again with the answer built the first time, not a new encoding", () => {
    for (const limit of limits) {
      for (const seconds of [1, 2, 60]) {
        assert.strictEqual(Refusals.rateLimited(limit, seconds), Refusals.rateLimited(limit, seconds))
      }
    }
  })
})

describe("RateLimitHeaders", () => {
  it.effect("adds the key's standing once counted, and Retry-After on a 429", () =>
    Effect.gen(function* () {
      const request = requestFor("/v1/vendors")
      const uncounted = yield* RateLimitHeaders.step(request, counted().next)
      assert.isUndefined(uncounted.headers["ratelimit-limit"])
      request.rateLimit = { limit: 100, remaining: 0, resetSeconds: 5, retryAfterSeconds: 1 }
      const refused = yield* RateLimitHeaders.step(request, counted(HttpServerResponse.empty({ status: 429 })).next)
      assert.deepInclude(refused.headers, {
        "ratelimit-limit": "100",
        "ratelimit-remaining": "0",
        "ratelimit-reset": "5",
        "retry-after": "1"
      })
      const answered = yield* RateLimitHeaders.step(request, counted().next)
      assert.isUndefined(answered.headers["retry-after"])
    })
  )
})

describe("RequestIdHeader", () => {
  it.effect("names the request on every answer", () =>
    Effect.gen(function* () {
      const request = requestFor("/nowhere")
      const answer = yield* RequestIdHeader.step(request, counted(HttpServerResponse.empty({ status: 500 })).next)
      assert.strictEqual(answer.headers["request-id"], request.requestId)
    })
  )
})
