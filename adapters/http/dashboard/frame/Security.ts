/**
 * What every dashboard answer and form submission must satisfy: security headers (a strict
 * Content-Security-Policy with no inline script, no framing, no sniffing, no referrer, no
 * caching but of the assets, whose names change with their content), the session cookie (HttpOnly, SameSite=Lax, Secure and `__Secure-` over HTTPS) and
 * the same-origin check every state-changing request passes before anything else.
 */
import { Effect } from "effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"

export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // Pico's form controls draw their icons as data: images.
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'"
].join("; ")

const headers: Record<string, string> = {
  "content-security-policy": contentSecurityPolicy,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  // Pages show keys and CSRF tokens: nothing may keep a copy, not even the browser's history.
  "cache-control": "no-store"
}

export const secured = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeaders(response, headers)

/** The cookie's name: over HTTPS with the `__Secure-` prefix, which browsers accept only there. */
export const cookieName = (secure: boolean) => (secure ? "__Secure-pr_session" : "pr_session")

/** The session token the request's cookie carries, if any. */
export const sessionCookie = (request: HttpServerRequest.HttpServerRequest, secure: boolean) =>
  request.cookies[cookieName(secure)]

export const cookiePath = "/dashboard"

export const withSession = (response: HttpServerResponse.HttpServerResponse, token: string, secure: boolean) =>
  HttpServerResponse.setCookie(response, cookieName(secure), token, {
    path: cookiePath,
    httpOnly: true,
    sameSite: "lax",
    secure
  }).pipe(Effect.orDie)

export const withoutSession = (response: HttpServerResponse.HttpServerResponse, secure: boolean) =>
  HttpServerResponse.expireCookie(response, cookieName(secure), {
    path: cookiePath,
    httpOnly: true,
    sameSite: "lax",
    secure
  }).pipe(Effect.orDie)

/**
 * Whether a state-changing request comes from the dashboard's own pages. Under
 * `Referrer-Policy: no-referrer` browsers send a form POST's `Origin` as `null`, so the proof is
 * `Sec-Fetch-Site: same-origin`, which no page can forge; an `Origin` that is sent must then be
 * this service's own (scheme and `Host`). A request that proves neither is refused: every browser
 * that can use the dashboard sends one or the other.
 */
export const isSameOrigin = (request: HttpServerRequest.HttpServerRequest, secure: boolean) => {
  const site = request.headers["sec-fetch-site"]
  const origin = request.headers.origin
  const own = `${secure ? "https" : "http"}://${request.headers.host ?? ""}`
  if (site !== undefined && site !== "same-origin") return false
  if (origin !== undefined && origin !== "null") return origin === own
  return site === "same-origin"
}
