/**
 * Every answered request is counted in the metrics by its route's pattern (never the raw path,
 * which would grow without bound), method and status, with the time it took to settle its
 * answer, and logged at debug level with its request id.
 */
import { Clock, Effect } from "effect"
import { observeRequest } from "../probes/Metrics.ts"
import type { Step } from "./Step.ts"

export const step: Step = (request, next) =>
  Effect.flatMap(next, (response) =>
    Effect.flatMap(Clock.currentTimeNanos, (now) => {
      const seconds = request.millisUntil(request.answeredNanos ?? now) / 1000
      return observeRequest(request.method, request.route?.pattern ?? "unmatched", response.status, seconds).pipe(
        Effect.andThen(
          Effect.logDebug("request answered").pipe(
            Effect.annotateLogs({
              requestId: request.requestId,
              method: request.method,
              path: request.shownPath,
              status: response.status
            })
          )
        ),
        Effect.as(response)
      )
    })
  )
