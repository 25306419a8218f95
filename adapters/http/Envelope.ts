/**
 * What every response shares, whatever route (or none) answered: a `Request-Id` header, the
 * documented JSON error body for what no endpoint handles, the rate-limit headers, and an audit
 * entry committed before the response leaves. An unknown path is 404 `resource_missing`; another
 * method on a known path is 405 with `Allow: GET` (the API is read-only); anything unexpected is
 * 500 `internal_error`, logged with its request id, the body saying nothing of internals; a
 * request that cannot be audited is answered 503 instead of its response. `/health` and `/ready`
 * are not audited: probes must answer about the database, not depend on it.
 */
import { Cause, Clock, DateTime, Effect, Option, Schema, type Types } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { InternalError, MethodNotAllowed, ResourceMissing, ServiceUnavailable } from "../../core/api/Errors.ts"
import { AuditLog } from "../../core/ports/AuditLog.ts"
import { randomSource } from "../keys/RandomIds.ts"
import { Metrics } from "./Metrics.ts"
import * as RequestState from "./RequestState.ts"

export const requestIdHeader = "request-id"

const requestIdBytes = randomSource(12)
const newRequestId = () => `req_${requestIdBytes().toString("hex")}`

// The routes of the API, as patterns over the path; a method other than GET on one of these is
// 405, not 404. Kept beside the contract's paths in `core/api/Api.ts`.
const knownPaths = [
  /^\/v1\/receivables\/?$/,
  /^\/v1\/receivables\/[^/]+\/?$/,
  /^\/v1\/vendors\/?$/,
  /^\/v1\/debtors\/?$/
]

const errorResponse = <S extends Schema.Codec<unknown, unknown>>(schema: S, error: S["Type"], status: number) =>
  HttpServerResponse.jsonUnsafe(Schema.encodeSync(schema)(error), { status })

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

// Keys presented in the query string by mistake are not kept in the audit log.
const redactKeys = (query: string) => query.replace(/([a-z][a-z0-9]{1,14}_live_)[0-9A-Za-z]+/g, "$1[redacted]")

const rateLimitHeaders = (state: RequestState.RateLimitState, status: number): Record<string, string> => ({
  "ratelimit-limit": String(state.limit),
  "ratelimit-remaining": String(state.remaining),
  "ratelimit-reset": String(state.resetSeconds),
  ...(status === 429 ? { "retry-after": String(state.retryAfterSeconds) } : {})
})

export const layer = HttpRouter.middleware(
  Effect.map(
    Effect.all([Effect.service(AuditLog), Effect.service(Metrics)]),
    ([audit, metrics]) =>
      (httpEffect): Handled =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const started = yield* Clock.currentTimeMillis
          const startedNanos = yield* Clock.currentTimeNanos
          const requestId = newRequestId()
          const url = new URL(request.url, "http://localhost")
          const path = url.pathname
          const answered = yield* httpEffect.pipe(
            Effect.catchCause((cause) => {
              if (isRouteNotFound(cause)) {
                return knownPaths.some((pattern) => pattern.test(path)) && request.method !== "GET"
                  ? Effect.succeed(
                      HttpServerResponse.setHeader(
                        errorResponse(MethodNotAllowed, MethodNotAllowed.of(request.method, path), 405),
                        "allow",
                        "GET"
                      )
                    )
                  : Effect.succeed(errorResponse(ResourceMissing, ResourceMissing.route(request.method, path), 404))
              }
              return Effect.logError("request failed", cause).pipe(
                Effect.annotateLogs({ requestId, method: request.method, path }),
                Effect.as(errorResponse(InternalError, InternalError.of(requestId), 500))
              )
            })
          )
          const state = RequestState.of(request)
          const response =
            state.rateLimit === undefined
              ? answered
              : HttpServerResponse.setHeaders(answered, rateLimitHeaders(state.rateLimit, answered.status))
          if (path === "/health" || path === "/ready" || path === "/metrics") {
            return HttpServerResponse.setHeader(response, requestIdHeader, requestId)
          }
          const finishedNanos = yield* Clock.currentTimeNanos
          const recorded = yield* Effect.exit(
            audit.record({
              at: DateTime.makeUnsafe(started),
              requestId,
              keyId: state.owner?.keyId ?? null,
              orgId: state.owner?.orgId ?? null,
              method: request.method,
              path,
              query: redactKeys(url.search.slice(1)),
              status: response.status,
              durationMs: Number(finishedNanos - startedNanos) / 1e6,
              clientAddress: Option.getOrNull(request.remoteAddress)
            })
          )
          const final =
            recorded._tag === "Success"
              ? response
              : errorResponse(ServiceUnavailable, ServiceUnavailable.auditUnavailable(requestId), 503)
          metrics.observeRequest(request.method, path, final.status, Number(finishedNanos - startedNanos) / 1e9)
          yield* Effect.logDebug("request answered").pipe(
            Effect.annotateLogs({ requestId, method: request.method, path, status: final.status })
          )
          return HttpServerResponse.setHeader(final, requestIdHeader, requestId)
        })
  ),
  { global: true }
)
