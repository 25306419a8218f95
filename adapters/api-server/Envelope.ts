/**
 * What every response shares, whatever route (or none) answered: a `Request-Id` header, the
 * documented JSON error body for what no endpoint handles, the rate-limit headers, and an audit
 * entry committed before the response leaves. The path is decided once, first (`RequestPath`):
 * a path that names no route exactly is 404 `resource_missing` without reaching the router;
 * another method on a route is 405 with `Allow: GET` (the API is read-only); anything unexpected
 * is 500 `internal_error`, logged with its request id, the body saying nothing of internals; a
 * client that leaves before its answer is recorded as 499, not as a server error; a request that
 * cannot be audited is answered 503 instead of its response. The probes (`/health`, `/ready`,
 * `/metrics`, exactly) are not audited: they must answer about the database, not depend on it.
 * Requests no accepted key vouches for are limited per client address. How an answer travels
 * (its ETag or a 304, its compression, `Representation` and `StaticResponses`) is settled before
 * the audit entry, which records the status sent; so is CORS (`Cors`): a preflight is a request
 * like any other, audited and limited per address, though it needs no key. Dashboard pages
 * (`RequestPath`, when mounted) are audited and limited per address as well, but keep their own
 * answers: no API error body, ETag, compression or CORS; what the envelope itself answers them
 * (429, 500, 503) is plain text under the dashboard's headers. Their handlers learn the client's
 * address and scheme through the core's `RequestOrigin`.
 */
import { Cause, Clock, DateTime, Effect, type Types } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import {
  InternalError,
  MethodNotAllowed,
  RateLimited,
  ResourceMissing,
  ServiceUnavailable
} from "../../core/api/Errors.ts"
import { redactKeys } from "../../core/domain/ApiKey.ts"
import { AuditLog } from "../../core/ports/AuditLog.ts"
import { IdSource } from "../../core/ports/IdSource.ts"
import { RequestOrigin } from "../../core/ports/RequestOrigin.ts"
import { AddressLimiter } from "./AddressLimiter.ts"
import { ClientAddress } from "./ClientAddress.ts"
import * as Cors from "./Cors.ts"
import { DocsAssets } from "./DocsAssets.ts"
import * as ErrorResponse from "./ErrorResponse.ts"
import * as Metrics from "./Metrics.ts"
import * as Representation from "./Representation.ts"
import * as RequestPath from "./RequestPath.ts"
import * as RequestState from "./RequestState.ts"
import * as StaticResponses from "./StaticResponses.ts"

export const requestIdHeader = "request-id"

const errorResponse = ErrorResponse.of

const isRouteNotFound = (cause: Cause.Cause<unknown>) =>
  cause.reasons.some(
    (reason) =>
      Cause.isFailReason(reason) &&
      reason.error instanceof HttpServerError.HttpServerError &&
      reason.error.reason._tag === "RouteNotFound"
  )

// The envelope handles every failure, but a router middleware's type must keep passing the
// "unhandled" marker on, hence the declared (never produced) error type.
type Handled = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  Types.unhandled,
  HttpServerRequest.HttpServerRequest
>

const isClientAbort = (cause: Cause.Cause<unknown>) =>
  cause.reasons.length > 0 &&
  cause.reasons.every(
    (reason) => Cause.isInterruptReason(reason) && reason.annotations.has(HttpServerError.ClientAbort.key)
  )

/** The status recorded for a request whose client left before its answer (nginx's convention). */
export const clientClosedRequest = 499

// The envelope's own answers to dashboard pages: short text, never cached, never framed.
const dashboardAnswer = (status: number, text: string) =>
  HttpServerResponse.text(text, {
    status,
    headers: {
      "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store"
    }
  })

const rateLimitHeaders = (state: RequestState.RateLimitState, status: number): Record<string, string> => ({
  "ratelimit-limit": String(state.limit),
  "ratelimit-remaining": String(state.remaining),
  "ratelimit-reset": String(state.resetSeconds),
  ...(status === 429 ? { "retry-after": String(state.retryAfterSeconds) } : {})
})

export const layer = HttpRouter.middleware(
  Effect.map(
    Effect.all([
      Effect.service(AuditLog),
      Effect.service(IdSource),
      Effect.service(AddressLimiter),
      Effect.service(ClientAddress),
      Effect.service(DocsAssets),
      Effect.orDie(Cors.settings),
      Effect.service(RequestPath.DashboardMounted)
    ]),
    ([audit, ids, addresses, clientAddress, docs, cors, dashboardMounted]) =>
      (httpEffect): Handled =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const started = yield* Clock.currentTimeMillis
          const startedNanos = yield* Clock.currentTimeNanos
          const requestId = ids.requestId()
          const { path, query, route } = RequestPath.decide(request.url, { dashboard: dashboardMounted })
          const dashboard = route?.dashboard === true
          const shownPath = redactKeys(dashboard ? RequestPath.redactDashboardPath(path) : path)
          const peer = request.remoteAddress._tag === "Some" ? request.remoteAddress.value : undefined
          const client = clientAddress.of(peer, request.headers["x-forwarded-for"])
          const throttled = route?.probe === true || client === null ? undefined : yield* addresses.refusal(client)
          const preflight =
            route?.probe === false && !dashboard ? Cors.preflight(cors, request.method, request.headers) : undefined
          const answered =
            throttled !== undefined
              ? (dashboard
                  ? dashboardAnswer(429, `Too many requests: try again in ${throttled.retryAfterSeconds} seconds.`)
                  : errorResponse(RateLimited, RateLimited.address(throttled.retryAfterSeconds), 429)
                ).pipe(HttpServerResponse.setHeader("retry-after", String(throttled.retryAfterSeconds)))
              : route === undefined
                ? errorResponse(ResourceMissing, ResourceMissing.route(request.method, shownPath), 404)
                : preflight !== undefined
                  ? HttpServerResponse.empty({ status: 204, headers: preflight })
                  : yield* httpEffect.pipe(
                      Effect.provideService(RequestOrigin, {
                        clientAddress: client,
                        secure: clientAddress.https(peer, request.headers["x-forwarded-proto"])
                      }),
                      Effect.catchCause((cause) => {
                        if (isRouteNotFound(cause) && dashboard) {
                          return Effect.succeed(dashboardAnswer(404, "There is no such page in the dashboard."))
                        }
                        if (isRouteNotFound(cause)) {
                          return Effect.succeed(
                            HttpServerResponse.setHeader(
                              errorResponse(MethodNotAllowed, MethodNotAllowed.of(request.method, shownPath), 405),
                              "allow",
                              "GET"
                            )
                          )
                        }
                        if (isClientAbort(cause))
                          return Effect.succeed(HttpServerResponse.empty({ status: clientClosedRequest }))
                        return Effect.logError("request failed", cause).pipe(
                          Effect.annotateLogs({ requestId, method: request.method, path: shownPath }),
                          Effect.as(
                            dashboard
                              ? dashboardAnswer(500, `Something went wrong. Quote request ${requestId} to support.`)
                              : errorResponse(InternalError, InternalError.of(requestId), 500)
                          )
                        )
                      })
                    )
          const state = RequestState.of(request)
          const conditions = {
            "accept-encoding": request.headers["accept-encoding"],
            "if-none-match": request.headers["if-none-match"]
          }
          const shaped =
            route?.static === true
              ? yield* StaticResponses.serve(
                  route.pattern === RequestPath.docsPath ? yield* docs.page(answered) : answered,
                  conditions
                )
              : route?.api === true
                ? yield* Representation.represent(answered, conditions)
                : answered
          const response =
            state.rateLimit === undefined
              ? shaped
              : HttpServerResponse.setHeaders(shaped, rateLimitHeaders(state.rateLimit, shaped.status))
          if (route?.probe === true) {
            return HttpServerResponse.setHeader(response, requestIdHeader, requestId)
          }
          if (state.authenticated !== true && client !== null) yield* addresses.spend(client)
          const finishedNanos = yield* Clock.currentTimeNanos
          const recorded = yield* Effect.exit(
            audit.record({
              at: DateTime.makeUnsafe(started),
              requestId,
              keyId: state.owner?.keyId ?? null,
              orgId: state.owner?.orgId ?? null,
              method: request.method,
              path: shownPath,
              query: redactKeys(query),
              status: response.status,
              durationMs: Number(finishedNanos - startedNanos) / 1e6,
              clientAddress: client
            })
          )
          const final =
            recorded._tag === "Success"
              ? response
              : dashboard
                ? dashboardAnswer(503, `The request could not be recorded, so it was not answered (${requestId}).`)
                : errorResponse(ServiceUnavailable, ServiceUnavailable.auditUnavailable(requestId), 503)
          yield* Metrics.observeRequest(
            request.method,
            route?.pattern ?? "unmatched",
            final.status,
            Number(finishedNanos - startedNanos) / 1e9
          )
          yield* Effect.logDebug("request answered").pipe(
            Effect.annotateLogs({ requestId, method: request.method, path: shownPath, status: final.status })
          )
          return HttpServerResponse.setHeader(
            dashboard ? final : Cors.decorate(cors, request.headers.origin, final),
            requestIdHeader,
            requestId
          )
        })
  ),
  { global: true }
)
