/**
 * A request is answered within its deadline (`REQUEST_DEADLINE_SECONDS`, default 10): past it the
 * router is interrupted (its queries with it) and the answer is 503 `service_unavailable` with
 * `Retry-After`, never a 500 and never a wait as long as a stalled database's. The audit entry,
 * written after, records the time the request really took.
 *
 * The router races its deadline inside the step that answers its failures (`Failures`), so the
 * request's own fiber is never the one interrupted: a client's hang-up still reaches that step as
 * before (499), and whatever runs after the answer (its audit entry) runs as for any answer.
 */
import { Config, Duration, Effect, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { ServiceUnavailable } from "../../../core/api/Errors.ts"
import * as Refusals from "./Refusals.ts"
import type { RequestContext } from "./RequestContext.ts"

export const deadlineSeconds = Config.schema(
  Schema.FiniteFromString.check(Schema.isBetween({ minimum: 0.05, maximum: 300 })),
  "REQUEST_DEADLINE_SECONDS"
).pipe(Config.withDefault(10))

/** How long a client is asked to wait before trying again. */
export const retryAfterSeconds = 2

/** `router`, or `late` once `seconds` have passed without its answer (the router is then interrupted). */
export const within =
  (seconds: number) =>
  <A, E, R, B>(router: Effect.Effect<A, E, R>, late: () => B): Effect.Effect<A | B, E, R> =>
    Effect.timeoutOrElse(router, { duration: Duration.seconds(seconds), orElse: () => Effect.sync(late) })

/** The answer to a request that ran out of time. */
export const refusal = (request: RequestContext, seconds: number) =>
  HttpServerResponse.setHeader(
    Refusals.refuse(
      request,
      503,
      { schema: ServiceUnavailable, error: ServiceUnavailable.deadline(seconds) },
      `The page could not be served in time: try again in ${retryAfterSeconds} seconds.`
    ),
    "retry-after",
    String(retryAfterSeconds)
  )
