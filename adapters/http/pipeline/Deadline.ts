/**
 * A request is answered within its deadline (`REQUEST_DEADLINE_SECONDS`, default 10): past it the
 * router is interrupted (its queries with it) and the answer is 503 `service_unavailable` with
 * `Retry-After`, never a 500 and never a wait as long as a stalled database's. The audit entry,
 * written after, records the time the request really took.
 */
import { Config, Duration, Effect, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { ServiceUnavailable } from "../../../core/api/Errors.ts"
import * as Refusals from "./Refusals.ts"
import type { Step } from "./Step.ts"

export const deadlineSeconds = Config.schema(
  Schema.FiniteFromString.check(Schema.isBetween({ minimum: 0.05, maximum: 300 })),
  "REQUEST_DEADLINE_SECONDS"
).pipe(Config.withDefault(10))

/** How long a client is asked to wait before trying again. */
export const retryAfterSeconds = 2

export const make =
  (seconds: number): Step =>
  (request, next) =>
    Effect.timeoutOrElse(next, {
      duration: Duration.seconds(seconds),
      orElse: () =>
        Effect.succeed(
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
        )
    })

export const step = Effect.map(Effect.orDie(deadlineSeconds), make)
