/**
 * The allowance of requests no key vouches for, per client address (`AddressLimiter`): a request
 * from an address past it is answered 429 at once, before any key lookup or query; a request that
 * no live key vouched for spends one request of its address's allowance once answered. Requests
 * from an unknown address (no peer) are not limited here. IPv6 addresses count by their /64.
 * A dashboard request whose session cookie the dashboard verified a moment ago
 * (`VerifiedSessions`) is not refused here: its session's own bucket counts it instead. Should
 * the session turn out to have ended, the request still spends the allowance, and the guard
 * forgets the cookie.
 */
import { Clock, Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { AddressLimiter } from "./AddressLimiter.ts"
import { addressKey } from "./ClientAddress.ts"
import * as Refusals from "./Refusals.ts"
import type { RequestContext } from "./RequestContext.ts"
import type { Step } from "./Step.ts"
import { sessionDigest, VerifiedSessions } from "./VerifiedSessions.ts"

/**
 * What an answered request spends: one request of its address's allowance, unless a live key
 * vouched for it or its address is unknown. The pipeline's step spends through it, and so do
 * Node's own rejections (`Rejections.ts`), which never reach the pipeline.
 */
export const spender = Effect.map(
  Effect.service(AddressLimiter),
  (addresses) => (request: RequestContext) =>
    Effect.suspend(() =>
      request.authenticated || request.clientAddress === null
        ? Effect.void
        : addresses.spend(addressKey(request.clientAddress))
    )
)

export const step = Effect.map(
  Effect.all([Effect.service(AddressLimiter), Effect.service(VerifiedSessions), spender]),
  ([addresses, sessions, spendOf]): Step =>
    (request, next) => {
      if (request.clientAddress === null) return next
      // IPv6 by its /64, which one client usually holds whole, as connections are counted.
      const client = addressKey(request.clientAddress)
      const session = request.dashboard ? sessionDigest(request.headers.cookie) : undefined
      const spend = spendOf(request)
      const vouched =
        session === undefined
          ? Effect.succeed(false)
          : Effect.map(Clock.currentTimeMillis, (now) => sessions.vouches(session, now))
      return Effect.flatMap(vouched, (bySession) => {
        if (bySession) return Effect.tap(next, () => spend)
        return Effect.flatMap(addresses.refusal(client), (refused) => {
          if (refused !== undefined) {
            const seconds = refused.retryAfterSeconds
            const answer = request.dashboard
              ? Refusals.pageText(429, `Too many requests: try again in ${seconds} seconds.`)
              : Refusals.rateLimited("address", seconds)
            return Effect.succeed(HttpServerResponse.setHeader(answer, "retry-after", String(seconds)))
          }
          return Effect.tap(next, () => spend)
        })
      })
    }
)
