/**
 * A request is answered within its deadline (`REQUEST_DEADLINE_SECONDS`, default 10): past it the
 * router is interrupted (its queries with it) and the answer is 503 `service_unavailable` with
 * `Retry-After`, never a 500 and never a wait as long as a stalled database's; or 408
 * `request_timeout`, closing the connection, when the request's body was still arriving. The audit entry,
 * written after, records the time the request really took.
 *
 * The deadline interrupts the request's own fiber, marked `DeadlineExceeded`, exactly as effect's
 * Node server interrupts it, marked `ClientAbort`, when the client hangs up; the step that answers
 * the router's failures (`Failures`) tells the two apart. Running the router in a fiber of its
 * own, or racing it, was tried: a hang-up then no longer reached the router at once (the 499 of
 * `test/e2e/hostile/requests.test.ts` came only at the deadline). No fiber is forked per request.
 */
import { Cause, Config, Context, Effect, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { RequestTimeout, ServiceUnavailable } from "../../../core/api/Errors.ts"
import * as Refusals from "./Refusals.ts"
import type { RequestContext } from "./RequestContext.ts"

export const deadlineSeconds = Config.schema(
  Schema.FiniteFromString.check(Schema.isBetween({ minimum: 0.05, maximum: 300 })),
  "REQUEST_DEADLINE_SECONDS"
).pipe(Config.withDefault(10))

/** How long a client is asked to wait before trying again. */
export const retryAfterSeconds = Refusals.retryAfterSeconds

/** Marks the interruption of a router that ran out of time. */
export class DeadlineExceeded extends Context.Service<DeadlineExceeded, true>()("adapters/http/DeadlineExceeded") {
  static annotation = this.context(true)
}

/** `router`, its fiber interrupted with `DeadlineExceeded` if it has not finished after `seconds`. */
export const within =
  (seconds: number) =>
  <A, E, R>(router: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber((fiber) => {
      const timer = setTimeout(() => fiber.interruptUnsafe(undefined, DeadlineExceeded.annotation), seconds * 1000)
      return Effect.ensuring(
        router,
        Effect.sync(() => clearTimeout(timer))
      )
    })

/** Whether `cause` is interruptions only, the deadline's among them. */
export const isExceeded = (cause: Cause.Cause<unknown>) =>
  cause.reasons.length > 0 &&
  cause.reasons.every(Cause.isInterruptReason) &&
  cause.reasons.some((reason) => Cause.isInterruptReason(reason) && reason.annotations.has(DeadlineExceeded.key))

/**
 * The answer to a request whose body was still arriving when it ran out of time: the client's
 * delay, not the service's, so 408 and no `Retry-After`. The connection is closed, since the rest
 * of the body will not be read.
 */
export const bodyRefusal = (request: RequestContext, seconds: number) =>
  HttpServerResponse.setHeader(
    Refusals.refuse(
      request,
      408,
      { schema: RequestTimeout, error: RequestTimeout.body(seconds) },
      "The form did not arrive in time: send it again."
    ),
    "connection",
    "close"
  )

/** The answer to a request that ran out of time. */
export const refusal = (request: RequestContext, seconds: number) =>
  Refusals.unavailable(
    request,
    ServiceUnavailable.deadline(seconds),
    `The page could not be served in time: try again in ${retryAfterSeconds} seconds.`
  )
