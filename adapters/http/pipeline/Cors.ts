/**
 * Cross-origin access from browsers (`CORS_ORIGINS`): off unless set; then exact origins
 * (`https://app.example.com`, comma-separated) or `*` for any. An allowed origin's preflight for
 * a method the route answers (GET or HEAD; POST, PATCH or DELETE where the route takes them, with
 * a JSON body) with a key is answered 204; its answers carry `Access-Control-Allow-Origin` and expose the
 * headers a client reads (request id, rate limits, ETag). Another origin gets no CORS header at
 * all, so the browser keeps its page from reading the answer. Two steps of the pipeline apply it:
 * one answers preflights, the other decorates every answer but the dashboard's.
 */
import { Config, Effect, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { commaList } from "./CommaList.ts"
import type { Step } from "./Step.ts"

export type Policy =
  | { readonly _tag: "Off" }
  | { readonly _tag: "Any" }
  | { readonly _tag: "Listed"; readonly origins: ReadonlySet<string> }

/** Whether `text` is an origin as browsers send it: scheme, host and port only, lower case. */
export const isOrigin = (text: string): boolean => {
  if (!URL.canParse(text)) return false
  const url = new URL(text)
  return (url.protocol === "http:" || url.protocol === "https:") && url.origin === text
}

const entry = Schema.String.check(
  Schema.makeFilter((text) => text === "*" || isOrigin(text), {
    expected:
      "* alone, or origins separated by commas, each exactly as a browser sends it: scheme, host and port only, lower case, no path or trailing slash (e.g. https://app.example.com,http://localhost:5173)"
  })
)

const entries = Schema.Array(entry).check(
  Schema.makeFilter((list) => !list.includes("*") || list.length === 1, {
    expected: "* alone (any origin), not * among origins"
  })
)

export const policyOf = (list: ReadonlyArray<string>): Policy =>
  list.length === 0 ? { _tag: "Off" } : list[0] === "*" ? { _tag: "Any" } : { _tag: "Listed", origins: new Set(list) }

export const settings = commaList("CORS_ORIGINS", entries).pipe(Config.map(policyOf))

/**
 * The `Access-Control-Allow-Origin` value for a request's `Origin`, if that origin is allowed.
 * With any origin allowed it is `*` whether or not the request names one, so an answer cached
 * for a request without `Origin` (the OpenAPI document, `public` for five minutes) serves a
 * browser's too.
 */
export const allowOrigin = (policy: Policy, origin: string | undefined): string | undefined => {
  if (policy._tag === "Off") return undefined
  if (policy._tag === "Any") return "*"
  return origin !== undefined && policy.origins.has(origin) ? origin : undefined
}

/** Headers a browser script may read from an answer, beyond the safelisted ones. */
export const exposedHeaders = "Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, ETag"

/** Request headers a script may send: the key, and a tag to revalidate with. */
export const allowedHeaders = "Authorization, If-None-Match"

/** A route's methods as a preflight allows them (HEAD with GET), and the headers: a body's type where it takes one. */
const allowedFor = (routeMethods: ReadonlyArray<string>) => {
  const writes = routeMethods.filter((method) => method !== "GET")
  const methods = [...(routeMethods.includes("GET") ? ["GET", "HEAD"] : []), ...writes]
  return { methods, headers: writes.length === 0 ? allowedHeaders : `${allowedHeaders}, Content-Type` }
}

/** How long a browser may reuse a preflight's answer: two hours, the most Chromium honours. */
export const maxAgeSeconds = 7200

/**
 * The answer to a CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`)
 * from an allowed origin for a method the route answers (GET, HEAD, and a write where the route
 * takes one); undefined for anything else, which is then answered as any `OPTIONS` is (405, no
 * CORS headers).
 */
export const preflight = (
  policy: Policy,
  method: string,
  headers: { readonly [name: string]: string | undefined },
  routeMethods: ReadonlyArray<string> = ["GET"]
): Record<string, string> | undefined => {
  const requested = headers["access-control-request-method"]
  const { methods, headers: requestHeaders } = allowedFor(routeMethods)
  if (method !== "OPTIONS" || headers.origin === undefined || requested === undefined || !methods.includes(requested)) {
    return undefined
  }
  const allowed = allowOrigin(policy, headers.origin)
  if (allowed === undefined) return undefined
  return {
    "access-control-allow-origin": allowed,
    "access-control-allow-methods": methods.join(", "),
    "access-control-allow-headers": requestHeaders,
    "access-control-max-age": String(maxAgeSeconds)
  }
}

/**
 * `response` with the CORS headers for a request from `origin`: none when CORS is off or the
 * origin is not allowed. With listed origins every answer depends on `Origin`, and says so in
 * `Vary`, so that no cache hands one origin's answer to another.
 */
export const decorate = (
  policy: Policy,
  origin: string | undefined,
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  const allowed = allowOrigin(policy, origin)
  const vary = response.headers.vary
  return HttpServerResponse.setHeaders(response, {
    ...(allowed === undefined
      ? {}
      : { "access-control-allow-origin": allowed, "access-control-expose-headers": exposedHeaders }),
    ...(policy._tag === "Listed" ? { vary: vary === undefined ? "Origin" : `${vary}, Origin` } : {})
  })
}

/** Answers an allowed origin's preflight for a route of the API or its documents with 204. */
export const preflightStep = Effect.map(
  Effect.orDie(settings),
  (policy): Step =>
    (request, next) => {
      if (request.route === undefined || request.route.probe || request.dashboard) return next
      const headers = preflight(policy, request.method, request.headers, request.route.methods)
      return headers === undefined ? next : Effect.succeed(HttpServerResponse.empty({ status: 204, headers }))
    }
)

/** Every answer but the dashboard's carries the CORS headers its request's origin may see. */
export const decorateStep = Effect.map(
  Effect.orDie(settings),
  (policy): Step =>
    (request, next) =>
      request.dashboard || policy._tag === "Off"
        ? next
        : Effect.map(next, (response) => decorate(policy, request.headers.origin, response))
)
