import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration } from "effect"
import fc from "fast-check"
import { nextAfterSuccess, retryCap, retryDelay } from "../../../core/receivables/domain/SyncSchedule.ts"
import { type RateLimitPolicy, take } from "../../../core/shared/domain/RateLimit.ts"

const policy = fc.record({
  perSecond: fc.double({ min: 0.1, max: 1_000, noNaN: true }),
  burst: fc.integer({ min: 1, max: 500 })
})

/** The token bucket the limits were before the GCRA: the reference for what clients are told. */
const tokenBucket = (p: RateLimitPolicy) => {
  let tokens = p.burst
  let at = 0
  return (now: number) => {
    const available = Math.min(p.burst, tokens + (Math.max(0, now - at) / 1000) * p.perSecond)
    const allowed = available >= 1
    tokens = allowed ? available - 1 : available
    at = Math.max(now, at)
    return {
      allowed,
      remaining: Math.floor(tokens),
      resetSeconds: Math.ceil((p.burst - tokens) / p.perSecond),
      retryAfterSeconds: allowed ? 0 : Math.ceil((1 - tokens) / p.perSecond)
    }
  }
}

const gaps = fc.array(fc.integer({ min: 0, max: 2_000 }), { maxLength: 200 })

describe("rate limit (GCRA)", () => {
  // At any instant, epoch milliseconds of today included, where a double's rounding of the TAT
  // is a quarter of a microsecond and must not cost a request.
  it("a burst near 2^41 ms, where doubles are half as exact, is allowed whole (a counterexample once)", () => {
    const p = { perSecond: 418.68, burst: 498 }
    let tat: number | undefined
    for (let i = 0; i < p.burst; i++) {
      const decision = take(p, tat, 2199023255550.96)
      assert.isTrue(decision.allowed)
      assert.strictEqual(decision.remaining, p.burst - i - 1)
      tat = decision.tatMillis
    }
  })

  it("allows exactly a burst at once, then refuses with a positive Retry-After", () =>
    fc.assert(
      fc.property(policy, fc.double({ min: 0, max: 4e12, noNaN: true }), (p, now) => {
        let tat: number | undefined
        for (let i = 0; i < p.burst; i++) {
          const decision = take(p, tat, now)
          assert.isTrue(decision.allowed)
          assert.strictEqual(decision.remaining, p.burst - i - 1)
          tat = decision.tatMillis
        }
        const refused = take(p, tat, now)
        assert.isFalse(refused.allowed)
        assert.isAbove(refused.retryAfterSeconds, 0)
        assert.strictEqual(refused.tatMillis, tat, "a refusal spends nothing")
        // Waiting the Retry-After is enough for the next request.
        assert.isTrue(take(p, refused.tatMillis, now + refused.retryAfterSeconds * 1000).allowed)
      })
    ))

  it("never lets more than burst + rate × time through", () =>
    fc.assert(
      fc.property(policy, gaps, (p, gaps) => {
        let tat: number | undefined
        let now = 0
        let allowed = 0
        for (const gap of gaps) {
          now += gap
          const decision = take(p, tat, now)
          tat = decision.tatMillis
          if (decision.allowed) allowed += 1
          assert.isAtLeast(decision.remaining, 0)
        }
        assert.isAtMost(allowed, p.burst + (p.perSecond * now) / 1000 + 1e-9)
      })
    ))

  // Rates whose interval is a whole number of milliseconds (the defaults, 20 and 50, among them),
  // where both are exact: the figures in the headers are the token bucket's, request for request.
  it("decides and reports as the token bucket it replaced", () =>
    fc.assert(
      fc.property(
        fc.constantFrom(1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000),
        fc.integer({ min: 1, max: 300 }),
        gaps,
        (perSecond, burst, gaps) => {
          const p = { perSecond, burst }
          const reference = tokenBucket(p)
          let tat: number | undefined
          let now = 0
          for (const gap of gaps) {
            now += gap
            const { tatMillis, ...decision } = take(p, tat, now)
            tat = tatMillis
            assert.deepStrictEqual(decision, reference(now))
          }
        }
      )
    ))
})

describe("sync schedule", () => {
  it("a success schedules the next run the interval later, give or take 10%", () =>
    fc.assert(
      fc.property(
        fc.integer({ min: 60, max: 86_400 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (seconds, random) => {
          const now = DateTime.makeUnsafe(0)
          const next = DateTime.toEpochMillis(nextAfterSuccess(now, Duration.seconds(seconds), random))
          assert.isAtLeast(next, seconds * 1000 * 0.9 - 1)
          assert.isAtMost(next, seconds * 1000 * 1.1 + 1)
        }
      )
    ))

  it("retries back off exponentially from 30 s and never wait more than the cap (with jitter)", () =>
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (failures, random) => {
          const delay = Duration.toMillis(retryDelay(failures, random))
          const next = Duration.toMillis(retryDelay(failures + 1, random))
          assert.isAtMost(delay, Duration.toMillis(retryCap) * 1.1 + 1)
          assert.isAtLeast(next, delay)
          if (failures === 1) assert.isTrue(delay >= 27_000 && delay <= 33_000)
        }
      )
    ))
})
