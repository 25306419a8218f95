/**
 * Every answered request is counted in the metrics by its route's pattern (never the raw path,
 * which would grow without bound), method and status, with the time it took to settle its
 * answer, and logged at debug level with its request id.
 */
import { Clock, Effect } from "effect"
import { observeRequest } from "../probes/Metrics.ts"
import type { RequestContext } from "./RequestContext.ts"
import type { Step } from "./Step.ts"

/**
 * Counts `request`, answered with `status`, under `route` (its route's pattern, `unmatched` when
 * it names none): the pipeline's step, and Node's own rejections (`Rejections.ts`), which never
 * reach the pipeline and may have no request line to match (`unparsed`).
 */
export const record = (request: RequestContext, status: number, route = request.route?.pattern ?? "unmatched") =>
  Effect.flatMap(Clock.currentTimeNanos, (now) => {
    const seconds = request.millisUntil(request.answeredNanos ?? now) / 1000
    return Effect.andThen(
      observeRequest(request.method, route, status, seconds),
      Effect.logDebug("request answered").pipe(
        Effect.annotateLogs({
          requestId: request.requestId,
          method: request.method,
          path: request.shownPath,
          status
        })
      )
    )
  })

export const step: Step = (request, next) =>
  Effect.flatMap(next, (response) => Effect.as(record(request, response.status), response))
