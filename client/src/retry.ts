/**
 * When to try a request again, and how long to wait first: pure functions of what the last attempt
 * got, so they are tested as laws. The API asks for waits with `Retry-After` (429, 503) and tells
 * when the key's allowance refills with `RateLimit-Reset`; without either, the wait grows
 * exponentially with jitter, so that many clients refused together do not return together.
 */

export interface RetryOptions {
  /** Retries after the first attempt; 0 turns them off. Default 3. */
  readonly maxRetries?: number
  /** The first backoff's ceiling; each retry doubles it. Default 500 ms. */
  readonly baseDelayMs?: number
  /** The ceiling of any backoff. Default 20 s. */
  readonly maxDelayMs?: number
  /**
   * The longest wait the API may ask for that the client sleeps through; a longer one is thrown
   * at once (`RateLimitError` or `ApiError` with its `retryAfter`), for the caller to schedule.
   * Default 60 s.
   */
  readonly maxRetryAfterMs?: number
}

export type RetryPolicy = Required<RetryOptions>

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000
}

export const retryPolicy = (options: RetryOptions | false | undefined): RetryPolicy =>
  options === false ? { ...defaultRetryPolicy, maxRetries: 0 } : { ...defaultRetryPolicy, ...options }

/**
 * Answers worth another attempt: the rate limit, and a service or gateway that is briefly
 * unavailable. A read that got no answer at all is retried too; any other 4xx would only be
 * refused again. A write is retried after a 429 only (`transport.ts`).
 */
export const retryableStatuses: ReadonlySet<number> = new Set([429, 502, 503, 504])

// RFC 9110 HTTP-dates all begin with a day name (IMF-fixdate, RFC 850, asctime).
const httpDate = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /

/** Seconds to wait from a `Retry-After` value (delta-seconds or an HTTP-date); undefined if neither. */
export const parseRetryAfter = (value: string | null | undefined, nowMs: number): number | undefined => {
  const text = value?.trim() ?? ""
  if (/^\d+$/.test(text)) return Number(text)
  if (!httpDate.test(text)) return undefined
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000))
}

/** Seconds until the key's allowance refills, from `RateLimit-Reset` (delta-seconds). */
export const parseRateLimitReset = (value: string | null | undefined): number | undefined => {
  const text = value?.trim() ?? ""
  return /^\d+$/.test(text) ? Number(text) : undefined
}

/** The wait before retry number `retry` (from 0) with no wait asked: half fixed, half random. */
export const backoffMs = (retry: number, policy: RetryPolicy, random: number): number => {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry)
  return Math.round(ceiling / 2 + (random * ceiling) / 2)
}

/** What one attempt got: an HTTP status, or none when no answer arrived. */
export interface AttemptOutcome {
  readonly status: number | undefined
  /** Seconds the API asked to wait, when it did. */
  readonly retryAfter: number | undefined
}

/** At most this much is added to a wait the API asked for, to spread the clients it refused. */
export const retryAfterJitterMs = 1_000

/**
 * How long to wait before retry number `retry` (from 0) after `outcome`, or undefined when the
 * request must not be retried: a final answer, retries used up, or a wait longer than allowed.
 */
export const retryDelayMs = (
  outcome: AttemptOutcome,
  retry: number,
  policy: RetryPolicy,
  random: number
): number | undefined => {
  if (retry >= policy.maxRetries) return undefined
  if (outcome.status !== undefined && !retryableStatuses.has(outcome.status)) return undefined
  if (outcome.retryAfter === undefined) return backoffMs(retry, policy, random)
  const asked = outcome.retryAfter * 1000
  if (asked > policy.maxRetryAfterMs) return undefined
  return asked + Math.round(random * Math.min(retryAfterJitterMs, policy.baseDelayMs))
}
