/**
 * Rate limiting by the generic cell rate algorithm (GCRA): `burst` requests at once, refilled at
 * `perSecond`, the same admissions as a token bucket refilled continuously. The state of a limit
 * is one number, its theoretical arrival time (TAT): when the limit would be full again. A limit
 * never seen, or whose TAT has passed, is full, so state may be forgotten once its TAT is past.
 * Pure: the caller keeps the TAT per limit and supplies the clock; `adapters/postgres/PgLimits.ts`
 * is this arithmetic's twin in one SQL statement. The figures feed the `RateLimit-*` and
 * `Retry-After` headers.
 */

export interface RateLimitPolicy {
  readonly perSecond: number
  readonly burst: number
}

export interface Decision {
  readonly allowed: boolean
  /** The limit's TAT after this request, in epoch milliseconds. */
  readonly tatMillis: number
  /** Requests that may still be made now. */
  readonly remaining: number
  /** Seconds until the limit is full again. */
  readonly resetSeconds: number
  /** Seconds to wait before the next request can pass; 0 when this one passed. */
  readonly retryAfterSeconds: number
}

/**
 * Sums of intervals carry rounding (1000 / 3 is not exact), so comparisons allow a nanosecond:
 * without it the hundredth request of a burst of 100 could be refused, or reported as leaving
 * one fewer, by 1e-13 ms.
 */
const rounding = 1e-6

/** Milliseconds between requests at the policy's rate: what one request adds to the TAT. */
export const intervalMillis = (policy: RateLimitPolicy): number => 1000 / policy.perSecond

/**
 * How far past now the TAT may reach after a request that passes: `burst` intervals, and the
 * rounding allowance. The PostgreSQL twin compares with this very number.
 */
export const ceilingMillis = (policy: RateLimitPolicy): number => policy.burst * intervalMillis(policy) + rounding

/**
 * Where a request stands once decided: from the TAT after it and whether it passed. Shared by
 * this module and the PostgreSQL limits, which return the TAT and the decision and leave the
 * headers' figures to this function.
 */
export const standing = (policy: RateLimitPolicy, allowed: boolean, tatMillis: number, nowMillis: number): Decision => {
  const interval = intervalMillis(policy)
  const used = Math.max(0, tatMillis - nowMillis)
  return {
    allowed,
    tatMillis,
    remaining: Math.max(0, Math.floor(policy.burst - used / interval + rounding)),
    resetSeconds: Math.max(0, Math.ceil(used / 1000 - rounding)),
    retryAfterSeconds: allowed
      ? 0
      : Math.max(1, Math.ceil((used + interval - policy.burst * interval) / 1000 - rounding))
  }
}

/**
 * One request against a limit whose TAT is `tatMillis` (undefined: never seen). It passes when the
 * TAT, once at least now, plus one interval stays within `burst` intervals of now; then the TAT
 * moves on by one interval. A refused request leaves the TAT as it was.
 */
export const take = (policy: RateLimitPolicy, tatMillis: number | undefined, nowMillis: number): Decision => {
  const interval = intervalMillis(policy)
  const from = Math.max(tatMillis ?? nowMillis, nowMillis)
  const allowed = from + interval - nowMillis <= ceilingMillis(policy)
  return standing(policy, allowed, allowed ? from + interval : from, nowMillis)
}
