/**
 * How the pipeline itself answers when it refuses or fails a request: the API's documented JSON
 * error body, or, for a dashboard page, a short plain text under the dashboard's headers (never
 * cached, never framed), since a person reads it in a browser.
 */
import type { Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { ServiceUnavailable } from "../../../core/api/Errors.ts"
import * as ErrorResponse from "./ErrorResponse.ts"
import type { RequestContext } from "./RequestContext.ts"

const pageHeaders = {
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
}

/** A dashboard page's refusal: `text` for the person reading it. */
export const pageText = (status: number, text: string) =>
  HttpServerResponse.text(text, { status, headers: pageHeaders })

/** The refusal `request` gets: `page` for a dashboard page, the API's error body otherwise. */
export const refuse = <S extends Schema.Codec<unknown, unknown>>(
  request: RequestContext,
  status: number,
  api: { readonly schema: S; readonly error: S["Type"] },
  page: string
): HttpServerResponse.HttpServerResponse =>
  request.dashboard ? pageText(status, page) : ErrorResponse.of(api.schema, api.error, status)

/** How long a client is asked to wait before trying again when the service cannot answer. */
export const retryAfterSeconds = 2

/**
 * 503 `service_unavailable` with `Retry-After`: the service cannot answer right now, and a client
 * that waits the seconds it is told finds it again. Every 503 of the pipeline is this one.
 */
export const unavailable = (request: RequestContext, error: ServiceUnavailable, page: string) =>
  HttpServerResponse.setHeader(
    refuse(request, 503, { schema: ServiceUnavailable, error }, page),
    "retry-after",
    String(retryAfterSeconds)
  )
