/**
 * A secret shown once on the page a form's redirect leads to (a new key, an invite link, an
 * endpoint's secret, recovery codes). The secret stays on the server (`ShownOnceStore`, sealed
 * under the webhook master key): the answer to the POST gives the browser a random handle in a
 * short-lived cookie scoped to that page alone (HttpOnly, SameSite=Strict, `__Secure-` over
 * HTTPS), and the page takes the secret by it, once, and clears the cookie. Reloading either page
 * then neither repeats the action nor shows the secret again, in whichever of the service's
 * processes the requests land, and no cookie, proxy log or browser store ever holds the secret.
 */
import { createHash, randomBytes } from "node:crypto"
import { DateTime, Duration, Effect, Option, Redacted } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpServerResponse as Response } from "effect/http"
import { ShownOnceStore } from "../../../../core/accounts/ports/ShownOnceStore.ts"
import type { OrgId } from "../../../../core/shared/domain/Ids.ts"
import { WebhookCrypto } from "../../../../core/webhooks/ports/WebhookCrypto.ts"

/** Long enough for the redirect; a secret not looked at by then is gone. */
const lifetime = Duration.seconds(60)

const cookieName = (name: string, secure: boolean) => (secure ? `__Secure-${name}` : name)
const cookieOptions = (path: string, secure: boolean) => ({
  path,
  httpOnly: true,
  sameSite: "strict" as const,
  secure
})

const digestOf = (handle: string) => new Uint8Array(createHash("sha256").update(handle).digest())

export interface ShownOnce {
  /** The cookie's name, without the `__Secure-` prefix; also the kind of secret it holds. */
  readonly name: string
  /** The page that shows the secret. */
  readonly path: string
}

/** The redirect to the page, the secret held for `orgId` and the handle to it in the cookie. */
export const redirect = (
  once: ShownOnce,
  orgId: OrgId,
  response: HttpServerResponse.HttpServerResponse,
  value: string,
  secure: boolean
) =>
  Effect.gen(function* () {
    const store = yield* ShownOnceStore
    const crypto = yield* WebhookCrypto
    const handle = randomBytes(32).toString("base64url")
    const now = yield* DateTime.now
    yield* store.hold(
      {
        handleHash: digestOf(handle),
        kind: once.name,
        orgId,
        sealed: yield* crypto.seal(Redacted.make(value)),
        expiresAt: DateTime.addDuration(now, lifetime)
      },
      now
    )
    return yield* Response.setCookie(response, cookieName(once.name, secure), handle, {
      ...cookieOptions(once.path, secure),
      maxAge: lifetime
    }).pipe(Effect.orDie)
  })

/**
 * The secret held for `orgId` under the request's handle, taken (a second read finds nothing), if
 * any; `clear` is applied to the answer that shows it.
 */
export const take = (once: ShownOnce, orgId: OrgId, request: HttpServerRequest.HttpServerRequest, secure: boolean) =>
  Effect.gen(function* () {
    const handle = request.cookies[cookieName(once.name, secure)]
    const sealed =
      handle === undefined
        ? Option.none<string>()
        : yield* (yield* ShownOnceStore).take(digestOf(handle), once.name, orgId, yield* DateTime.now)
    const value = Option.isNone(sealed) ? undefined : Redacted.value(yield* (yield* WebhookCrypto).open(sealed.value))
    return {
      value,
      clear: (response: HttpServerResponse.HttpServerResponse) =>
        Response.expireCookie(response, cookieName(once.name, secure), cookieOptions(once.path, secure)).pipe(
          Effect.orDie
        )
    }
  })
