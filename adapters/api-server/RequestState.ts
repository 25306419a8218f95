/**
 * What the inner middlewares learn about a request that the envelope around them needs after
 * the response: whose key it carried (for the audit log, also a revoked key's), whether that key
 * was accepted (a request that was not counts against its client address's limit), and where the
 * key stands with its rate limit (for the headers). Keyed by the underlying Node request, so it
 * lives as long as it does.
 */
import type { HttpServerRequest } from "effect/http"
import type { KeyOwner } from "../../core/services/ApiKeys.ts"

export interface RateLimitState {
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
  readonly retryAfterSeconds: number
}

export interface RequestState {
  owner?: KeyOwner
  authenticated?: boolean
  rateLimit?: RateLimitState
}

const states = new WeakMap<object, RequestState>()

export const of = (request: HttpServerRequest.HttpServerRequest): RequestState => {
  const found = states.get(request.source)
  if (found !== undefined) return found
  const state: RequestState = {}
  states.set(request.source, state)
  return state
}
