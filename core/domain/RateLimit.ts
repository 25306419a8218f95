/**
 * Per-key rate limiting as a token bucket: `burst` requests at once, refilled at `perSecond`.
 * Pure: the caller keeps one bucket per key and supplies the clock. The figures feed the
 * `RateLimit-*` and `Retry-After` headers.
 */

export interface RateLimitPolicy {
  readonly perSecond: number
  readonly burst: number
}

export interface Bucket {
  readonly tokens: number
  readonly atMillis: number
}

export interface Decision {
  readonly allowed: boolean
  readonly bucket: Bucket
  /** Requests that may still be made now. */
  readonly remaining: number
  /** Seconds until the bucket is full again. */
  readonly resetSeconds: number
  /** Seconds to wait before the next request can pass; 0 when this one passed. */
  readonly retryAfterSeconds: number
}

export const fullBucket = (policy: RateLimitPolicy, atMillis: number): Bucket => ({ tokens: policy.burst, atMillis })

export const take = (policy: RateLimitPolicy, bucket: Bucket, nowMillis: number): Decision => {
  const elapsed = Math.max(0, nowMillis - bucket.atMillis) / 1000
  const available = Math.min(policy.burst, bucket.tokens + elapsed * policy.perSecond)
  const allowed = available >= 1
  const tokens = allowed ? available - 1 : available
  return {
    allowed,
    bucket: { tokens, atMillis: Math.max(nowMillis, bucket.atMillis) },
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((policy.burst - tokens) / policy.perSecond),
    retryAfterSeconds: allowed ? 0 : Math.ceil((1 - tokens) / policy.perSecond)
  }
}
