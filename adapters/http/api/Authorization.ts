/**
 * The bearer-key middleware: no Authorization header is `api_key_missing`; anything that is not
 * a known, live key is `api_key_invalid` or `api_key_revoked`; a key over its rate limit is 429.
 * The caller's organization is then provided to the handlers, which scope every query with it,
 * and noted on the request (`CurrentRequest`) for the audit log and the rate-limit headers.
 */
import { Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { AuthenticationFailed, RateLimited } from "../../../core/api/Errors.ts"
import { Authorization, CurrentPrincipal } from "../../../core/api/Security.ts"
import type { OrgId } from "../../../core/domain/Ids.ts"
import { ApiKeys, type KeyOwner } from "../../../core/services/ApiKeys.ts"
import { CurrentRequest, type RateLimitState } from "../pipeline/RequestContext.ts"
import { RateLimiter } from "./RateLimiter.ts"

// Outside the pipeline (a handler run on its own) what would be noted goes nowhere.
const detached = (): {
  owner: KeyOwner | undefined
  authenticated: boolean
  rateLimit: RateLimitState | undefined
} => ({
  owner: undefined,
  authenticated: false,
  rateLimit: undefined
})

export const layer = Layer.effect(
  Authorization,
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const limiter = yield* RateLimiter
    return Authorization.of({
      bearer: Effect.fn("Authorization.bearer")(function* (httpEffect, { credential }) {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (request.headers.authorization === undefined) return yield* AuthenticationFailed.of("api_key_missing")
        if (Redacted.value(credential).length === 0) return yield* AuthenticationFailed.of("api_key_invalid")
        // Noted on the request for the steps around the router: the audit, the address budget, the headers.
        const state = (yield* CurrentRequest) ?? detached()
        const owner = yield* keys.verify(credential).pipe(
          Effect.catchTag("ApiKeyRejected", ({ reason, keyId, orgId }) => {
            // A revoked key is known: its use is attributed to it, so a leaked key can be traced.
            if (keyId !== undefined && orgId !== undefined) state.owner = { keyId, orgId: orgId as OrgId }
            return Effect.fail(AuthenticationFailed.of(reason === "revoked" ? "api_key_revoked" : "api_key_invalid"))
          })
        )
        state.owner = owner
        state.authenticated = true
        const decision = yield* limiter.take(owner.keyId)
        state.rateLimit = {
          limit: limiter.policy.burst,
          remaining: decision.remaining,
          resetSeconds: decision.resetSeconds,
          retryAfterSeconds: decision.retryAfterSeconds
        }
        if (!decision.allowed) return yield* RateLimited.of(decision.retryAfterSeconds)
        return yield* Effect.provideService(httpEffect, CurrentPrincipal, owner)
      })
    })
  })
)
