/**
 * When a pair syncs next: after a success, its interval with jitter (so pairs created together do
 * not stay in lockstep); after a failure, a capped exponential backoff, with jitter too. The pair's
 * `next_sync_at` then tells API clients the truth about the retry. `random` is in [0, 1).
 */
import { DateTime, Duration } from "effect"

/** The share of an interval by which a run may come earlier or later. */
export const jitterShare = 0.1

export const retryBase = Duration.seconds(30)
export const retryCap = Duration.hours(1)

const jittered = (millis: number, random: number) => millis * (1 + (random * 2 - 1) * jitterShare)

export const nextAfterSuccess = (now: DateTime.Utc, interval: Duration.Duration, random: number): DateTime.Utc =>
  DateTime.addDuration(now, Duration.millis(Math.round(jittered(Duration.toMillis(interval), random))))

/** The delay before retry number `failures` (1 for the first retry), capped, with jitter. */
export const retryDelay = (failures: number, random: number): Duration.Duration => {
  const exponential = Duration.toMillis(retryBase) * 2 ** Math.max(0, Math.min(failures - 1, 20))
  return Duration.millis(Math.round(jittered(Math.min(exponential, Duration.toMillis(retryCap)), random)))
}

export const nextAfterFailure = (now: DateTime.Utc, failures: number, random: number): DateTime.Utc =>
  DateTime.addDuration(now, retryDelay(failures, random))
