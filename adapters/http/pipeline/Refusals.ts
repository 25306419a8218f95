/**
 * How the pipeline itself answers when it refuses or fails a request: the API's documented JSON
 * error body, or, for a dashboard page, a short plain text under the dashboard's headers (never
 * cached, never framed), since a person reads it in a browser. A refusal for a limit (429) is
 * answered from bytes built once, not encoded per request: a refused flood then costs what
 * writing the answer costs.
 */
import { Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { RateLimited, ServiceUnavailable } from "../../../core/api/Errors.ts"
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

/** Which limit refused a request; each has its own message (`RateLimited`). */
export type Limit = "key" | "organization" | "keyInFlight" | "organizationInFlight" | "address"

const limitErrors: Record<Limit, (retryAfterSeconds: number) => RateLimited> = {
  key: RateLimited.of,
  organization: RateLimited.organization,
  keyInFlight: (seconds) => RateLimited.inFlight("key", seconds),
  organizationInFlight: (seconds) => RateLimited.inFlight("organization", seconds),
  address: RateLimited.address
}

/** The 429 of `limit` built as the error encoder builds it: the body's bytes once, the same answer each time. */
const buildRateLimited = (limit: Limit, retryAfterSeconds: number): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.uint8Array(
    new TextEncoder().encode(JSON.stringify(Schema.encodeSync(RateLimited)(limitErrors[limit](retryAfterSeconds)))),
    { status: 429, contentType: "application/json" }
  )

/**
 * Answers kept per limit, one per `Retry-After` met: a limit's waits are a few whole seconds (its
 * burst over its rate at most), so this bounds the memory, not the hits.
 */
const keptPerLimit = 256

const built = new Map<Limit, Map<number, HttpServerResponse.HttpServerResponse>>(
  (Object.keys(limitErrors) as Array<Limit>).map((limit) => [limit, new Map()])
)

/**
 * The API's 429 for `limit` with a wait of `retryAfterSeconds`: prebuilt, byte for byte what the
 * error encoder answers. Headers (`Retry-After`, `RateLimit-*`) are the caller's to add.
 */
export const rateLimited = (limit: Limit, retryAfterSeconds: number): HttpServerResponse.HttpServerResponse => {
  const answers = built.get(limit)!
  const kept = answers.get(retryAfterSeconds)
  if (kept !== undefined) return kept
  const answer = buildRateLimited(limit, retryAfterSeconds)
  if (answers.size < keptPerLimit) answers.set(retryAfterSeconds, answer)
  return answer
}
