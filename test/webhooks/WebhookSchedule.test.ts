/** The retry schedule's laws: jitter within 20%, later attempts wait longer, about three days in all. */
import { assert, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import fc from "fast-check"
import {
  honourRetryAfter,
  jitterRatio,
  maxAttempts,
  nextDelay,
  retryAfterCeiling,
  retryDelays
} from "../../core/webhooks/domain/WebhookSchedule.ts"

const unit = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })
const madeAttempts = fc.integer({ min: 1, max: maxAttempts - 1 })
const millis = (duration: Duration.Duration | undefined) => Duration.toMillis(duration!)

describe("the retry schedule", () => {
  it("attempts at about 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h", () => {
    assert.deepStrictEqual(
      retryDelays.map((delay) => Duration.toSeconds(delay)),
      [0, 5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400]
    )
  })

  it("each delay is within 20% of the schedule's", () =>
    fc.assert(
      fc.property(madeAttempts, unit, (attempts, draw) => {
        const base = Duration.toMillis(retryDelays[attempts]!)
        const delay = millis(nextDelay(attempts, draw))
        assert.isAtLeast(delay, Math.floor(base * (1 - jitterRatio)))
        assert.isAtMost(delay, Math.ceil(base * (1 + jitterRatio)))
      })
    ))

  it("with the same draw, a later attempt never waits less", () =>
    fc.assert(
      fc.property(madeAttempts, unit, (attempts, draw) => {
        const later = nextDelay(attempts + 1, draw)
        if (later !== undefined) assert.isAtLeast(millis(later), millis(nextDelay(attempts, draw)))
      })
    ))

  it("all the retries together take about three days, and then there are none", () =>
    fc.assert(
      fc.property(fc.array(unit, { minLength: maxAttempts, maxLength: maxAttempts }), (draws) => {
        let total = 0
        for (let attempts = 1; attempts < maxAttempts; attempts++)
          total += millis(nextDelay(attempts, draws[attempts]!))
        const days = total / Duration.toMillis(Duration.days(1))
        assert.isAtLeast(days, 2.5)
        assert.isAtMost(days, 3.8)
        assert.isUndefined(nextDelay(maxAttempts, draws[0]!))
      })
    ))

  it("a Retry-After never makes an attempt sooner than scheduled, nor later than a day", () =>
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200_000_000 }),
        fc.option(fc.integer({ min: -10, max: 10_000_000 }), { nil: null }),
        (scheduledMs, asked) => {
          const scheduled = Duration.millis(scheduledMs)
          const wait = Duration.toMillis(honourRetryAfter(scheduled, asked))
          assert.isAtLeast(wait, scheduledMs)
          assert.isAtMost(wait, Math.max(scheduledMs, Duration.toMillis(retryAfterCeiling)))
          if (asked !== null && asked > 0) {
            assert.isAtLeast(wait, Math.min(asked * 1000, Duration.toMillis(retryAfterCeiling)))
          }
        }
      )
    ))
})
