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
 * TATs are epoch milliseconds in doubles, exact to a quarter of a microsecond today and half of one
 * past 2^41 ms (the year 2039): a burst's sum of intervals (1000 / 3 is not exact) drifts by up to
 * half that per request. So a request may pass a little early, 0.1 ms and a microsecond per request
 * of the burst; without the allowance the last request of a burst could be refused, or reported as
 * leaving one fewer, for a rounding error (a burst of 498 near 2^41 drifted 0.11 ms).
 */
const roundingMillis = (policy: RateLimitPolicy): number => 0.1 + policy.burst * 0.001

/** Milliseconds between requests at the policy's rate: what one request adds to the TAT. */
export const intervalMillis = (policy: RateLimitPolicy): number => 1000 / policy.perSecond

/**
 * How far past now the TAT may reach after a request that passes: `burst` intervals, and the
 * rounding allowance. The PostgreSQL twin compares with this very number.
 */
export const ceilingMillis = (policy: RateLimitPolicy): number =>
  policy.burst * intervalMillis(policy) + roundingMillis(policy)

/**
 * Where a request stands once decided: from the TAT after it and whether it passed. Shared by
 * this module and the PostgreSQL limits, which return the TAT and the decision and leave the
 * headers' figures to this function.
 */
export const standing = (policy: RateLimitPolicy, allowed: boolean, tatMillis: number, nowMillis: number): Decision => {
  const interval = intervalMillis(policy)
  const ceiling = ceilingMillis(policy)
  const used = Math.max(0, tatMillis - nowMillis)
  return {
    allowed,
    tatMillis,
    remaining: Math.max(0, Math.floor((ceiling - used) / interval)),
    resetSeconds: Math.max(0, Math.ceil((used - roundingMillis(policy)) / 1000)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((used + interval - ceiling) / 1000))
  }
}

/**
 * One request against a limit whose TAT is `tatMillis` (undefined: never seen). It passes when the
 * time the limit is already spent for, plus one interval, stays within `ceilingMillis`; then the
 * TAT, once at least now, moves on by one interval. A refused request leaves the TAT as it was.
 * The PostgreSQL twin computes the same expressions in the same order.
 *
 * `cost` requests taken together (a process's batch, `core/access/domain/LocalAllowance.ts`) pass
 * or fail together, as `cost` requests at one instant would, with one check: all or nothing, so
 * that what was granted is known from whether it passed. A cost of 0 takes nothing and passes.
 */
export const take = (policy: RateLimitPolicy, tatMillis: number | undefined, nowMillis: number, cost = 1): Decision => {
  const advance = intervalMillis(policy) * cost
  const spent = tatMillis === undefined ? 0 : Math.max(tatMillis - nowMillis, 0)
  const allowed = spent + advance <= ceilingMillis(policy)
  const from = tatMillis === undefined ? nowMillis : Math.max(tatMillis, nowMillis)
  return standing(policy, allowed, allowed ? from + advance : from, nowMillis)
}
