/**
 * The innermost step: runs the router with the request at hand (`CurrentRequest`) and turns every
 * way it can fail into an answer. The router runs within the request's deadline (`Deadline`): past
 * it, 503 with `Retry-After`, or 408 if the request's body was still arriving. A path the router has no route for under this method is 405
 * with `Allow` naming the path's methods (the path itself was decided to exist), or a plain 404
 * page inside the dashboard; a client that left before its answer is recorded as 499 (nginx's
 * convention), not as a server error; a database that cannot be used right now (refused, lost or
 * timed-out connections, a pooler's refusals, a server shutting down or starting up: see
 * `isDatabaseUnavailable`) is 503 `service_unavailable` with `Retry-After`, as a stalled one is,
 * whether its error was handled or not; anything else is 500 `internal_error`, logged with the
 * request id, its body saying nothing of internals.
 */
import { Cause, Effect, type Types } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpServerError, HttpServerResponse } from "effect/http"
import { SqlError } from "effect/sql"
import { InternalError, MethodNotAllowed, ServiceUnavailable } from "../../../core/api/Errors.ts"
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

/**
 * SQLSTATEs of a server that cannot take work right now, beyond the connection exceptions (class
 * 08, which the driver reports as `ConnectionError`, as it does sockets refused, reset or silent):
 * `too_many_connections` and `configuration_limit_exceeded` (53300, 53400), `admin_shutdown`,
 * `crash_shutdown` and `cannot_connect_now` (57P01 to 57P03: a server stopping or starting). A
 * pooler reports its own refusals (a server it cannot reach, a login it retries later, a queue
 * wait past its bound) as 08P01. Not these: a full disk, memory run out or an I/O error (53100,
 * 53200, class 58) last until an operator acts, so they stay faults, logged as errors for alerts
 * to see, rather than "try again in 2 seconds".
 */
const unavailableState = /^(08|53[34]00|57P0[123])/

const sqlStateOf = (reason: SqlError.SqlErrorReason): string | undefined => {
  const code = (reason.cause as { readonly code?: unknown } | undefined)?.code
  return typeof code === "string" ? code : undefined
}

/**
 * Whether `error` (a failure or a defect: the stores die with what they do not expect) is the
 * database being unreachable or unable to take work, rather than a fault of the request or of the
 * code: a `SqlError` whose reason is the connection's, or whose SQLSTATE says so, also when
 * wrapped as the cause of another error.
 */
export const isDatabaseUnavailable = (error: unknown): boolean => {
  for (let at = error, depth = 0; at !== undefined && at !== null && depth < 5; depth++) {
    if (SqlError.isSqlError(at)) {
      const state = sqlStateOf(at.reason)
      return at.reason._tag === "ConnectionError" || (state !== undefined && unavailableState.test(state))
    }
    at = (at as { readonly cause?: unknown }).cause
  }
  return false
}

const databaseUnavailable = (cause: Cause.Cause<unknown>) =>
  cause.reasons.some(
    (reason) =>
      (Cause.isFailReason(reason) && isDatabaseUnavailable(reason.error)) ||
      (Cause.isDieReason(reason) && isDatabaseUnavailable(reason.defect))
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
  // Logged at warning level, one line a request: an outage is the operator's to see, not a fault.
  if (databaseUnavailable(cause)) {
    return Effect.logWarning("request failed: the database cannot be used right now", cause).pipe(
      Effect.annotateLogs({ requestId: request.requestId, method: request.method, path: request.shownPath }),
      Effect.as(
        Refusals.unavailable(
          request,
          ServiceUnavailable.databaseUnavailable(),
          `The service is unavailable for a moment: try again in ${Refusals.retryAfterSeconds} seconds.`
        )
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
