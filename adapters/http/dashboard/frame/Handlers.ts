/**
 * What the dashboard's routes share: HTML answers under the security headers, the form reader,
 * and the guards every handler passes through: the request's origin (HTTPS as the server or the
 * public URL says), the signed-in session, and for changes the same-origin check and the
 * session's CSRF token.
 */
import { ByteSize, Clock, Effect, Option } from "effect"
import { HttpIncomingMessage, HttpServerRequest, HttpServerResponse, UrlParams } from "effect/http"
import { Accounts, type CurrentSession } from "../../../../core/accounts/services/Accounts.ts"
import { WebhookOverview } from "../../../../core/webhooks/ports/WebhookOverview.ts"
import { RateLimiter } from "../../pipeline/RateLimiter.ts"
import * as Refusals from "../../pipeline/Refusals.ts"
import { CurrentRequest } from "../../pipeline/RequestContext.ts"
import { digestOf, VerifiedSessions } from "../../pipeline/VerifiedSessions.ts"
import { bannerCountCap, type Viewer } from "./Layout.ts"
import * as Pages from "./Pages.ts"
import * as Security from "./Security.ts"

export type Response = HttpServerResponse.HttpServerResponse

export const htmlPage = (body: string, status = 200): Response =>
  Security.secured(HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8" }))

export const seeOther = (location: string): Response =>
  Security.secured(HttpServerResponse.empty({ status: 303, headers: { location } }))

export const signInPath = "/dashboard/sign-in"
export const keysPath = "/dashboard/keys"
/** Where signing in, and `/dashboard` itself, lead. */
export const overviewPath = "/dashboard/overview"

/** The query string's parameters of a request, for the pages' GET forms. */
export const queryOf = (request: HttpServerRequest.HttpServerRequest) =>
  new URLSearchParams(request.url.split("?")[1] ?? "")

/** The dashboard's forms are small; a body past this is not read and counts as an empty form. */
const maxFormBytes = ByteSize.kibibytes(16)

// A body that is not a form, or too large, reads as an empty one. Read once per request: the
// body's bytes are kept by the request.
const formParamsOf = (request: HttpServerRequest.HttpServerRequest) =>
  request.urlParamsBody.pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, maxFormBytes),
    Effect.orElseSucceed(() => UrlParams.empty)
  )

/** The form's fields, the first value of each. */
export const formOf = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(
    formParamsOf(request),
    (params) => (name: string) => Option.getOrElse(UrlParams.getFirst(params, name), () => "")
  )

/** Every value of a field the form repeats (checkboxes of one name). */
export const formValuesOf = (request: HttpServerRequest.HttpServerRequest, name: string) =>
  Effect.map(formParamsOf(request), (params) => UrlParams.getAll(params, name))

/**
 * The session the guard let through, with what it found for every page's banner: carried by the
 * value each handler receives, so that it lives exactly as long as the request.
 */
export interface Guarded extends CurrentSession {
  /** The organization's webhook endpoints the service disabled, counted up to the banner's cap. */
  readonly disabledWebhookEndpoints: number
}

export const viewerOf = (session: Guarded): Viewer => ({
  user: session.user,
  csrfToken: session.csrfToken,
  disabledWebhookEndpoints: session.disabledWebhookEndpoints
})

export const crossSite = () =>
  htmlPage(Pages.refusal("Request refused", "The request did not come from this dashboard's own pages."), 403)

export const notFound = htmlPage(Pages.refusal("Page not found", "There is no such page in the dashboard."), 404)

export interface GuardOptions {
  /**
   * People reach the service over HTTPS (its public URL is `https://`), whatever the request
   * says: the session cookie is then always `Secure`, even when no trusted proxy said so.
   */
  readonly publicHttps: boolean
}

/** The guards, over the core's `Accounts`. */
export const makeGuards = Effect.fnUntraced(function* (options: GuardOptions) {
  const access = yield* Accounts
  const sessions = yield* RateLimiter
  const verified = yield* Effect.service(VerifiedSessions)
  const webhooks = yield* WebhookOverview

  const context = Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const reported = yield* CurrentRequest
    const origin = {
      clientAddress: reported?.clientAddress ?? null,
      secure: reported?.secure === true || options.publicHttps
    }
    return { request, origin, token: Security.sessionCookie(request, origin.secure) }
  })

  /** The signed-in user's page, or the way to sign in. */
  const signedIn = <R>(handle: (session: Guarded, clientAddress: string | null) => Effect.Effect<Response, never, R>) =>
    Effect.gen(function* () {
      const { origin, token } = yield* context
      if (token === undefined) return seeOther(signInPath)
      const session = yield* Effect.option(access.authenticate(token))
      if (Option.isNone(session)) {
        verified.forget(digestOf(token))
        // Why is told only to the holder of the ended session's token, by a code in the address.
        const reason = yield* access.endedReason(token)
        const to = Option.isSome(reason) ? `${signInPath}?ended=${reason.value}` : signInPath
        return yield* Security.withoutSession(seeOther(to), origin.secure)
      }
      // A signed-in user's pages count against their session, not against the allowance their
      // address shares with everything keyless from it (an office behind one address).
      const reported = yield* CurrentRequest
      if (reported !== undefined) reported.authenticated = true
      // Known to the pipeline from now on, which then counts it by session before looking it up.
      const digest = Buffer.from(session.value.tokenHash).toString("hex")
      verified.remember(digest, yield* Clock.currentTimeMillis)
      const decision = yield* sessions.take(`session:${digest}`)
      if (!decision.allowed) {
        return HttpServerResponse.setHeader(
          Refusals.pageText(429, `Too many requests: try again in ${decision.retryAfterSeconds} seconds.`),
          "retry-after",
          String(decision.retryAfterSeconds)
        )
      }
      // One short indexed read per page (`PgWebhookOverview`), for the banner.
      const disabled = yield* webhooks.disabled(session.value.user.orgId, bannerCountCap + 1)
      return yield* handle({ ...session.value, disabledWebhookEndpoints: disabled.length }, origin.clientAddress)
    })

  /** A state-changing request: same origin, signed in, carrying the session's CSRF token. */
  const signedInChange = <R>(
    handle: (
      session: Guarded,
      clientAddress: string | null,
      field: (name: string) => string
    ) => Effect.Effect<Response, never, R>
  ) =>
    Effect.gen(function* () {
      const { request, origin } = yield* context
      if (!Security.isSameOrigin(request, origin.secure)) return crossSite()
      const field = yield* formOf(request)
      return yield* signedIn((session, clientAddress) =>
        access.checkCsrf(session, field("csrf"))
          ? handle(session, clientAddress, field)
          : Effect.succeed(
              htmlPage(
                Pages.refusal(
                  "Form expired",
                  "This form is no longer valid. Reload the page and try again.",
                  viewerOf(session)
                ),
                403
              )
            )
      )
    })

  // The cookie is cleared as well; the session behind it is already gone.
  const signedOut = Effect.flatMap(context, ({ origin }) =>
    Security.withoutSession(seeOther(`${signInPath}?signed-out`), origin.secure)
  )

  return { context, signedIn, signedInChange, signedOut }
})

export type Guards = Effect.Success<ReturnType<typeof makeGuards>>
