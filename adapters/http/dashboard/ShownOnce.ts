/**
 * A secret shown once on the page a form's redirect leads to (a new key, an invite link): the
 * answer to the POST carries it in a short-lived cookie scoped to that page alone (HttpOnly,
 * SameSite=Strict, `__Secure-` over HTTPS), and the page clears it as it shows it. Reloading either
 * page then neither repeats the action nor shows the secret again, in whichever of the service's
 * processes the requests land.
 */
import { Effect } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpServerResponse as Response } from "effect/http"

/** Long enough for the redirect; a secret not looked at by then is gone from the browser. */
const lifetimeSeconds = 60

const cookieName = (name: string, secure: boolean) => (secure ? `__Secure-${name}` : name)
const cookieOptions = (path: string, secure: boolean) => ({
  path,
  httpOnly: true,
  sameSite: "strict" as const,
  secure
})

export interface ShownOnce {
  /** The cookie's name, without the `__Secure-` prefix. */
  readonly name: string
  /** The page that shows the secret. */
  readonly path: string
}

/** The redirect to the page, carrying `value` (cookie-safe text: base64url, ids, dots). */
export const redirect = (
  once: ShownOnce,
  response: HttpServerResponse.HttpServerResponse,
  value: string,
  secure: boolean
) =>
  Response.setCookie(response, cookieName(once.name, secure), value, {
    ...cookieOptions(once.path, secure),
    maxAge: `${lifetimeSeconds} seconds`
  }).pipe(Effect.orDie)

/** What the request carries, if anything; `clear` is applied to the answer that shows it. */
export const read = (once: ShownOnce, request: HttpServerRequest.HttpServerRequest, secure: boolean) => ({
  value: request.cookies[cookieName(once.name, secure)],
  clear: (response: HttpServerResponse.HttpServerResponse) =>
    Response.expireCookie(response, cookieName(once.name, secure), cookieOptions(once.path, secure)).pipe(Effect.orDie)
})
