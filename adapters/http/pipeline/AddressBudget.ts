/**
 * The allowance of requests no key vouches for, per client address (`AddressLimiter`): a request
 * from an address past it is answered 429 at once, before any key lookup or query; a request that
 * no live key vouched for spends one request of its address's allowance once answered. Requests
 * from an unknown address (no peer) are not limited here. IPv6 addresses count by their /64.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { RateLimited } from "../../../core/api/Errors.ts"
import { addressKey } from "../ConnectionBudget.ts"
import { AddressLimiter } from "./AddressLimiter.ts"
import * as Refusals from "./Refusals.ts"
import type { Step } from "./Step.ts"

export const step = Effect.map(
  Effect.service(AddressLimiter),
  (addresses): Step =>
    (request, next) => {
      if (request.clientAddress === null) return next
      // IPv6 by its /64, which one client usually holds whole, as connections are counted.
      const client = addressKey(request.clientAddress)
      return Effect.flatMap(addresses.refusal(client), (refused) => {
        if (refused !== undefined) {
          const seconds = refused.retryAfterSeconds
          const answer = Refusals.refuse(
            request,
            429,
            { schema: RateLimited, error: RateLimited.address(seconds) },
            `Too many requests: try again in ${seconds} seconds.`
          )
          return Effect.succeed(HttpServerResponse.setHeader(answer, "retry-after", String(seconds)))
        }
        return Effect.tap(next, () => (request.authenticated ? Effect.void : addresses.spend(client)))
      })
    }
)
