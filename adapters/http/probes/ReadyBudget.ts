/**
 * `/ready` asks the database, and it needs no key: unlimited, one address once answered 3,521 a
 * second and slowed every tenant tenfold. So each client address gets an allowance of its own
 * for it, apart from the one for keyless API requests (a flood of bad keys through a proxy must
 * not make an instance look unready to its load balancer). Held in the process, never in the
 * database: the probe must answer whether the database can take writes or not.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { RateLimited } from "../../../core/api/Errors.ts"
import type { RateLimitPolicy } from "../../../core/shared/domain/RateLimit.ts"
import * as AddressLimiter from "../pipeline/AddressLimiter.ts"
import * as Refusals from "../pipeline/Refusals.ts"
import type { Step } from "../pipeline/Step.ts"

export const readyPath = "/ready"

/** Per client address: a burst of 10, then 2 a second; an orchestrator probes every few seconds. */
export const policy: RateLimitPolicy = { perSecond: 2, burst: 10 }

export const step = Effect.map(
  AddressLimiter.make(policy),
  (addresses): Step =>
    (request, next) => {
      const client = request.clientAddress
      if (request.route?.pattern !== readyPath || client === null) return next
      return Effect.flatMap(addresses.refusal(client), (refused) => {
        if (refused === undefined) return Effect.andThen(addresses.spend(client), next)
        const seconds = refused.retryAfterSeconds
        const answer = Refusals.refuse(request, 429, { schema: RateLimited, error: RateLimited.address(seconds) }, "")
        return Effect.succeed(HttpServerResponse.setHeader(answer, "retry-after", String(seconds)))
      })
    }
)
