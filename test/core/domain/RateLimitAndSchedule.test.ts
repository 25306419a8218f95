import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration } from "effect"
import fc from "fast-check"
import { fullBucket, take } from "../../../core/domain/RateLimit.ts"
import { nextAfterSuccess, retryCap, retryDelay } from "../../../core/domain/SyncSchedule.ts"

const policy = fc.record({
  perSecond: fc.double({ min: 0.1, max: 1_000, noNaN: true }),
  burst: fc.integer({ min: 1, max: 500 })
})

describe("rate limit token bucket", () => {
  it("allows exactly a burst at once, then refuses with a positive Retry-After", () =>
    fc.assert(
      fc.property(policy, (p) => {
        let bucket = fullBucket(p, 0)
        for (let i = 0; i < p.burst; i++) {
          const decision = take(p, bucket, 0)
          assert.isTrue(decision.allowed)
          assert.strictEqual(decision.remaining, p.burst - i - 1)
          bucket = decision.bucket
        }
        const refused = take(p, bucket, 0)
        assert.isFalse(refused.allowed)
        assert.isAbove(refused.retryAfterSeconds, 0)
        // Waiting the Retry-After is enough for the next request.
        assert.isTrue(take(p, refused.bucket, refused.retryAfterSeconds * 1000).allowed)
      })
    ))

  it("never lets more than burst + rate × time through", () =>
    fc.assert(
      fc.property(policy, fc.array(fc.integer({ min: 0, max: 2_000 }), { maxLength: 200 }), (p, gaps) => {
        let bucket = fullBucket(p, 0)
        let now = 0
        let allowed = 0
        for (const gap of gaps) {
          now += gap
          const decision = take(p, bucket, now)
          bucket = decision.bucket
          if (decision.allowed) allowed += 1
          assert.isAtLeast(decision.remaining, 0)
        }
        assert.isAtMost(allowed, p.burst + (p.perSecond * now) / 1000 + 1e-9)
      })
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
