/**
 * What every response shares, whatever route (or none) answered: a `Request-Id` header, and the
 * documented JSON error body for what no endpoint handles. An unknown path is 404
 * `resource_missing`; another method on a known path is 405 with `Allow: GET` (the API is
 * read-only); anything unexpected is 500 `internal_error`, logged with its request id, and the
 * body says nothing of internals.
 */
import { randomBytes } from "node:crypto"
import { Cause, Effect, Schema, type Types } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { InternalError, MethodNotAllowed, ResourceMissing } from "../../core/api/Errors.ts"

export const requestIdHeader = "request-id"

const newRequestId = () => `req_${randomBytes(12).toString("hex")}`

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

export const layer = HttpRouter.middleware(
  (httpEffect): Handled =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const requestId = newRequestId()
      const path = new URL(request.url, "http://localhost").pathname
      const response = yield* httpEffect.pipe(
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
      return HttpServerResponse.setHeader(response, requestIdHeader, requestId)
    }),
  { global: true }
)
