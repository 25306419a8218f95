/**
 * The bearer-key middleware: no Authorization header is `api_key_missing`; anything that is not
 * a known, live key is `api_key_invalid` or `api_key_revoked` (also a key the shared limits'
 * refill finds revoked since it was verified: dropped from the cache); a key over its rate limit, then
 * over its organization's (all its keys together: the organization's own limit, verified with the
 * key, or the default), or with too many requests in flight (its own or its organization's,
 * `InFlight`), is 429. The `RateLimit-*` headers report the tighter of the two limits.
 * The caller's organization is then provided to the handlers, which scope every query with it,
 * and noted on the request (`CurrentRequest`) for the audit log and the rate-limit headers.
 * A group that needs a permission refuses a key without it with 403 (`webhooksPermission`).
 */
import { Effect, Layer, Option, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { ApiKeys, type KeyOwner } from "../../../core/access/services/ApiKeys.ts"
import { VerifiedKeys } from "../../../core/access/services/VerifiedKeyCache.ts"
import { AuthenticationFailed, PermissionDenied } from "../../../core/api/Errors.ts"
import { Authorization, CurrentPrincipal } from "../../../core/api/Security.ts"
import { WebhooksPermission } from "../../../core/api/WebhooksApi.ts"
import type { OrgId } from "../../../core/shared/domain/Ids.ts"
import type { Decision, RateLimitPolicy } from "../../../core/shared/domain/RateLimit.ts"
import { RateLimiter } from "../pipeline/RateLimiter.ts"
import * as Refusals from "../pipeline/Refusals.ts"
import { CurrentRequest, type RateLimitState } from "../pipeline/RequestContext.ts"
import { InFlight } from "./InFlight.ts"

/** Where a request stands with one limit, as the `RateLimit-*` headers report it. */
const standing = (policy: RateLimitPolicy, decision: Decision): RateLimitState => ({
  limit: policy.burst,
  remaining: decision.remaining,
  resetSeconds: decision.resetSeconds,
  retryAfterSeconds: decision.retryAfterSeconds
})

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
    const inFlight = yield* InFlight
    // The cache of verified keys, where the key policy has one, to drop a key found revoked.
    const verified = yield* Effect.serviceOption(VerifiedKeys)
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
        // The organization's limit is taken only once the key's own let the request through, so a
        // key held back by its own limit spends nothing of its organization's. With the shared
        // store the statement that refills this process's allowance of the key (at least every
        // second) finds a key another process revoked since this one verified (and cached) it:
        // refused then, even if the revocation's announcement never arrives.
        const orgPolicy = owner.orgRateLimit ?? limiter.organizationPolicy
        const { key: decision, organization: orgDecision } = yield* limiter
          .takeKeyAndOrganization(owner.keyId, owner.orgId, orgPolicy)
          .pipe(
            Effect.catchTag("KeyFoundRevoked", () =>
              Effect.andThen(
                Option.match(verified, { onNone: () => Effect.void, onSome: (cache) => cache.forget(owner.keyId) }),
                Effect.fail(AuthenticationFailed.of("api_key_revoked"))
              )
            )
          )
        state.authenticated = true
        const byKey = standing(limiter.policy, decision)
        state.rateLimit = byKey
        // Refusals are answered from prebuilt bytes (`Refusals.rateLimited`), not through the error
        // encoder: a refused flood must cost as little as it can.
        if (!decision.allowed || orgDecision === undefined)
          return Refusals.rateLimited("key", decision.retryAfterSeconds)
        const byOrganization = standing(orgPolicy, orgDecision)
        // The headers report the tighter limit; a refusal, the one that refused.
        state.rateLimit = !orgDecision.allowed || byOrganization.remaining < byKey.remaining ? byOrganization : byKey
        if (!orgDecision.allowed) return Refusals.rateLimited("organization", orgDecision.retryAfterSeconds)
        return yield* inFlight.admit(owner, Effect.provideService(httpEffect, CurrentPrincipal, owner), (scope) => {
          // Refused for what is held now, not for the rate: a second is soon enough to retry.
          state.rateLimit = { ...state.rateLimit!, retryAfterSeconds: 1 }
          return Effect.succeed(Refusals.rateLimited(scope === "key" ? "keyInFlight" : "organizationInFlight", 1))
        })
      })
    })
  })
)

/**
 * The webhooks group's 403: a key accepted above, but without the `webhooks` permission, may not
 * manage endpoints. Decided before the request's body is read (`WebhooksBody.ts`).
 */
export const webhooksPermission = Layer.succeed(
  WebhooksPermission,
  WebhooksPermission.of((httpEffect) =>
    Effect.gen(function* () {
      const { permissions } = yield* CurrentPrincipal
      if (permissions?.includes("webhooks") !== true) {
        return yield* PermissionDenied.of("webhooks", "manage webhook endpoints")
      }
      return yield* httpEffect
    })
  )
)
