/**
 * The innermost step: runs the router with the request at hand (`CurrentRequest`) and turns every
 * way it can fail into an answer. The router runs within the request's deadline (`Deadline`): past
 * it, 503 with `Retry-After`, or 408 if the request's body was still arriving. A path the router has no route for under this method is 405
 * with `Allow` naming the path's methods (the path itself was decided to exist), or a plain 404
 * page inside the dashboard; a client that left before its answer is recorded as 499 (nginx's
 * convention), not as a server error; anything else is 500 `internal_error`, logged with the
 * request id, its body saying nothing of internals.
 */
import { Cause, Effect, type Types } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpServerError, HttpServerResponse } from "effect/http"
import { InternalError, MethodNotAllowed } from "../../../core/api/Errors.ts"
import * as Deadline from "./Deadline.ts"
import * as Refusals from "./Refusals.ts"
import { CurrentRequest, type RequestContext } from "./RequestContext.ts"
import type { Answer } from "./Step.ts"

/** The status recorded for a request whose client left before its answer (nginx's convention). */
export const clientClosedRequest = 499

/** What the router is: it may fail in any way, and leave what it does not handle unhandled. */
export type Router = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  Types.unhandled | unknown,
  HttpServerRequest.HttpServerRequest
>

const isRouteNotFound = (cause: Cause.Cause<unknown>) =>
  cause.reasons.some(
    (reason) =>
      Cause.isFailReason(reason) &&
      reason.error instanceof HttpServerError.HttpServerError &&
      reason.error.reason._tag === "RouteNotFound"
  )

// Interruptions only, one of them the client's hang-up (a deadline may have come with it).
const isClientAbort = (cause: Cause.Cause<unknown>) =>
  cause.reasons.length > 0 &&
  cause.reasons.every(Cause.isInterruptReason) &&
  cause.reasons.some(
    (reason) => Cause.isInterruptReason(reason) && reason.annotations.has(HttpServerError.ClientAbort.key)
  )

/** The answer for a router that failed with `cause` (`deadlineSeconds`: the deadline it had). */
export const answerFor = (
  request: RequestContext,
  cause: Cause.Cause<unknown>,
  deadlineSeconds: number
): Answer<never> => {
  // The client's hang-up first: whatever else happened, nobody is there to read an answer.
  if (isClientAbort(cause)) return Effect.succeed(HttpServerResponse.empty({ status: clientClosedRequest }))
  if (Deadline.isExceeded(cause)) {
    return Effect.succeed(
      request.bodyArriving ? Deadline.bodyRefusal(request, deadlineSeconds) : Deadline.refusal(request, deadlineSeconds)
    )
  }
  if (isRouteNotFound(cause)) {
    const allowed = request.route?.methods ?? ["GET"]
    return Effect.succeed(
      request.dashboard
        ? Refusals.pageText(404, "There is no such page in the dashboard.")
        : HttpServerResponse.setHeader(
            Refusals.refuse(
              request,
              405,
              { schema: MethodNotAllowed, error: MethodNotAllowed.of(request.method, request.shownPath, allowed) },
              ""
            ),
            "allow",
            allowed.join(", ")
          )
    )
  }
  return Effect.logError("request failed", cause).pipe(
    Effect.annotateLogs({ requestId: request.requestId, method: request.method, path: request.shownPath }),
    Effect.as(
      Refusals.refuse(
        request,
        500,
        { schema: InternalError, error: InternalError.of(request.requestId) },
        `Something went wrong. Quote request ${request.requestId} to support.`
      )
    )
  )
}

/** The router's answer to `request` within `deadlineSeconds`, whatever happened in it. */
export const run = (router: Router, deadlineSeconds: number) => {
  const timed = Deadline.within(deadlineSeconds)(router)
  return (request: RequestContext): Answer<HttpServerRequest.HttpServerRequest> =>
    timed.pipe(
      Effect.provideService(CurrentRequest, request),
      Effect.catchCause((cause) => answerFor(request, cause, deadlineSeconds))
    )
}
