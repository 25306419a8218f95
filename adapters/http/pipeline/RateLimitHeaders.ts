/**
 * Where the caller's key stands with its rate limit, on the answer once the key was counted:
 * `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`, and `Retry-After` on a 429 that
 * has none of its own.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import type { RateLimitState } from "./RequestContext.ts"
import type { Step } from "./Step.ts"

export const headersFor = (state: RateLimitState, status: number): Record<string, string> => ({
  "ratelimit-limit": String(state.limit),
  "ratelimit-remaining": String(state.remaining),
  "ratelimit-reset": String(state.resetSeconds),
  ...(status === 429 ? { "retry-after": String(state.retryAfterSeconds) } : {})
})

// A 429 that already says when to come back (a webhook replay past its organization's bounds)
// keeps its own `Retry-After`: the key's limit is not what refused it.
export const step: Step = (request, next) =>
  Effect.map(next, (response) =>
    request.rateLimit === undefined
      ? response
      : HttpServerResponse.setHeaders(
          response,
          headersFor(request.rateLimit, response.headers["retry-after"] === undefined ? response.status : 200)
        )
  )
