/**
 * When a delivery is attempted again, and when an endpoint is given up on: pure, so that the
 * schedule's laws are property-tested and the worker's timing runs on `TestClock`.
 *
 * Attempts at about 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after the one
 * before (about three days in all), each delay scaled by a jitter within +-20% so that the
 * retries of many deliveries failing together do not arrive together. Depends on `effect` only.
 */
import { Duration } from "effect"

/** The delay before each attempt, the first included (none). */
export const retryDelays: ReadonlyArray<Duration.Duration> = [
  Duration.zero,
  Duration.seconds(5),
  Duration.minutes(5),
  Duration.minutes(30),
  Duration.hours(2),
  Duration.hours(5),
  Duration.hours(10),
  Duration.hours(14),
  Duration.hours(20),
  Duration.hours(24)
]

export const maxAttempts = retryDelays.length
export const jitterRatio = 0.2
/** A 2xx within this is success; no answer by then is a timeout. */
export const attemptTimeout = Duration.seconds(15)
/** An endpoint failing this long (and failing still) is disabled. */
export const disableAfter = Duration.days(5)
/** A `Retry-After` is honoured within these bounds: no sooner than the schedule's next, no later than this. */
export const retryAfterCeiling = Duration.hours(24)

/**
 * The delay before attempt number `attempt + 1`, after `attempt` attempts made; none once the
 * schedule is exhausted. `unit` is a uniform draw in [0, 1) for the jitter.
 */
export const nextDelay = (attempt: number, unit: number): Duration.Duration | undefined => {
  const base = retryDelays[attempt]
  if (attempt < 1 || base === undefined) return undefined
  const scale = 1 - jitterRatio + 2 * jitterRatio * unit
  return Duration.millis(Math.round(Duration.toMillis(base) * scale))
}

/**
 * The delay before the next attempt once the receiver asked for `retryAfterSeconds`: at least the
 * schedule's (a receiver cannot make us retry faster), at most a day.
 */
export const honourRetryAfter = (scheduled: Duration.Duration, retryAfterSeconds: number | null): Duration.Duration => {
  if (retryAfterSeconds === null || !Number.isFinite(retryAfterSeconds) || retryAfterSeconds <= 0) return scheduled
  const asked = Duration.min(Duration.seconds(retryAfterSeconds), retryAfterCeiling)
  return Duration.max(scheduled, asked)
}

/** Whether an answer's status is success. */
export const isSuccess = (status: number) => status >= 200 && status < 300

/** `410 Gone`: the receiver says the endpoint is no more; it is disabled at once. */
export const isGone = (status: number) => status === 410
