/**
 * The client's retry policy as laws: what `Retry-After` and `RateLimit-Reset` mean, the bounds of
 * the backoff, and which answers are never retried.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  backoffMs,
  defaultRetryPolicy,
  parseRateLimitReset,
  parseRetryAfter,
  type RetryPolicy,
  retryAfterJitterMs,
  retryDelayMs
} from "../../client/src/retry.ts"

const now = fc.integer({ min: Date.parse("2000-01-01"), max: Date.parse("2090-01-01") })
const random = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })
const policy: fc.Arbitrary<RetryPolicy> = fc
  .record({
    maxRetries: fc.integer({ min: 0, max: 10 }),
    baseDelayMs: fc.integer({ min: 1, max: 5_000 }),
    maxDelayMs: fc.integer({ min: 1, max: 120_000 }),
    maxRetryAfterMs: fc.integer({ min: 0, max: 600_000 })
  })
  .filter((p) => p.baseDelayMs <= p.maxDelayMs)
const finalStatus = fc.integer({ min: 200, max: 599 }).filter((s) => ![429, 502, 503, 504].includes(s))

describe("Retry-After", () => {
  it("as delta-seconds is that many seconds, around any whitespace", () =>
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), now, (seconds, at) => {
        assert.strictEqual(parseRetryAfter(` ${seconds} `, at), seconds)
      })
    ))

  it("as an HTTP-date is the whole seconds until then, and 0 once it has passed", () =>
    fc.assert(
      fc.property(fc.integer({ min: -86_400, max: 86_400 }), now, (seconds, at) => {
        const date = new Date(at + seconds * 1000).toUTCString()
        assert.strictEqual(parseRetryAfter(date, at), Math.max(0, seconds))
      })
    ))

  it("is nothing when it is neither", () => {
    for (const text of [null, undefined, "", "soon", "-5", "1.5", "2026-11-01T00:00:00Z", "Funday, 1 Jan"]) {
      assert.isUndefined(parseRetryAfter(text, 0), String(text))
    }
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(!/^\s*\d+\s*$/.test(text) && !/^\s*(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/.test(text))
        assert.isUndefined(parseRetryAfter(text, 0))
      })
    )
  })

  it("RateLimit-Reset is delta-seconds only", () => {
    assert.strictEqual(parseRateLimitReset("7"), 7)
    assert.isUndefined(parseRateLimitReset("Wed, 21 Oct 2026 07:28:00 GMT"))
    assert.isUndefined(parseRateLimitReset(null))
  })
})

describe("the wait before a retry", () => {
  it("backs off within half and all of a ceiling that doubles up to maxDelayMs", () =>
    fc.assert(
      fc.property(policy, fc.nat({ max: 40 }), random, (p, retry, r) => {
        const ceiling = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** retry)
        const wait = backoffMs(retry, p, r)
        assert.isAtLeast(wait, Math.floor(ceiling / 2))
        assert.isAtMost(wait, ceiling)
      })
    ))

  it("honours a wait the API asked for, plus at most a second of jitter, when it is allowed", () =>
    fc.assert(
      fc.property(policy, fc.nat({ max: 3_600 }), random, (p, seconds, r) => {
        fc.pre(p.maxRetries > 0)
        const wait = retryDelayMs({ status: 429, retryAfter: seconds }, 0, p, r)
        if (seconds * 1000 > p.maxRetryAfterMs) return assert.isUndefined(wait)
        assert.isDefined(wait)
        assert.isAtLeast(wait!, seconds * 1000)
        assert.isAtMost(wait!, seconds * 1000 + retryAfterJitterMs)
      })
    ))

  it("never retries a final answer, nor once the retries are used up", () =>
    fc.assert(
      fc.property(policy, finalStatus, fc.nat({ max: 20 }), random, (p, status, retry, r) => {
        assert.isUndefined(retryDelayMs({ status, retryAfter: undefined }, retry, p, r))
        assert.isUndefined(retryDelayMs({ status: 503, retryAfter: undefined }, p.maxRetries + retry, p, r))
      })
    ))

  it("retries 429, 502, 503, 504 and no answer at all while retries remain", () =>
    fc.assert(
      fc.property(fc.constantFrom(429, 502, 503, 504, undefined), fc.nat({ max: 2 }), random, (status, retry, r) => {
        const wait = retryDelayMs({ status, retryAfter: undefined }, retry, defaultRetryPolicy, r)
        assert.isDefined(wait)
        assert.isAtMost(wait!, defaultRetryPolicy.maxDelayMs)
      })
    ))
})
