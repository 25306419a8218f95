/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4) for connectors that poll an API: the client id
 * and secret are exchanged at the token endpoint for an access token, sent as a bearer token.
 * A token is kept in this process until shortly before it expires, so syncs every few minutes
 * do not ask for a new one each time, and an API that refuses it (401: revoked, rotated, expired
 * early) gets one new token and one more try before the run fails. Messages name the token
 * endpoint, never the id's secret, the token or an answer's body.
 */
import { createHash } from "node:crypto"
import { Clock, Effect, Redacted, Schema } from "effect"
import type { HttpClient } from "effect/http"
import { type ConnectorFailed, permanentFailure } from "../../../core/receivables/ports/PortalConnector.ts"
import { isUnauthorized, requestJson, valueAt } from "./PortalHttp.ts"

export interface TokenRequest {
  readonly tokenUrl: URL
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly scope?: string | undefined
  readonly audience?: string | undefined
  /**
   * How the client proves itself: `basic` (HTTP Basic, which every server must accept, RFC 6749
   * §2.3.1) or `post` (the id and secret in the form, as Coupa wants).
   */
  readonly clientAuthentication: "basic" | "post"
  readonly timeoutSeconds: number
}

export const ClientAuthentication = Schema.Literals(["basic", "post"])

interface CachedToken {
  readonly token: Redacted.Redacted<string>
  /** When to stop using it, in milliseconds since the epoch: shortly before it expires. */
  readonly until: number
}

// Tokens by endpoint, client, scope and audience (and a digest of the secret, so a rotated secret
// gets a token of its own). A bounded number: the oldest is dropped first.
const cache = new Map<string, CachedToken>()
const cachedTokens = 1_000

const cacheKey = (request: TokenRequest) =>
  JSON.stringify([
    request.tokenUrl.href,
    request.clientId,
    request.scope ?? "",
    request.audience ?? "",
    createHash("sha256").update(Redacted.value(request.clientSecret)).digest("base64")
  ])

/** How long before its stated expiry a token is given up: a minute, or half its life when that is shorter. */
export const usableFor = (expiresInSeconds: number) =>
  Math.max(0, expiresInSeconds - Math.min(60, expiresInSeconds / 2)) * 1000

const place = (url: URL) => `${url.origin}${url.pathname}`

const requestToken = (request: TokenRequest) =>
  Effect.gen(function* () {
    const form = new URLSearchParams({ grant_type: "client_credentials" })
    if (request.scope !== undefined) form.set("scope", request.scope)
    if (request.audience !== undefined) form.set("audience", request.audience)
    const secret = Redacted.value(request.clientSecret)
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" }
    if (request.clientAuthentication === "post") {
      form.set("client_id", request.clientId)
      form.set("client_secret", secret)
    } else {
      // RFC 6749 §2.3.1: each part form-encoded before it is joined.
      const encode = (text: string) => new URLSearchParams({ v: text }).toString().slice(2)
      headers.authorization = `Basic ${Buffer.from(`${encode(request.clientId)}:${encode(secret)}`).toString("base64")}`
    }
    const answer = yield* requestJson(request.tokenUrl.origin, {
      url: request.tokenUrl,
      method: "POST",
      headers,
      body: form.toString(),
      timeoutSeconds: request.timeoutSeconds
    })
    const token = valueAt(answer.body, "access_token")
    if (typeof token !== "string" || token === "") {
      return yield* permanentFailure(`${place(request.tokenUrl)} gave no access token`)
    }
    const type = valueAt(answer.body, "token_type")
    if (typeof type === "string" && type.toLowerCase() !== "bearer") {
      return yield* permanentFailure(
        `${place(request.tokenUrl)} gave a token of type "${type.slice(0, 32)}"; only bearer tokens are sent`
      )
    }
    const expiresIn = Number(valueAt(answer.body, "expires_in"))
    const now = yield* Clock.currentTimeMillis
    return {
      token: Redacted.make(token),
      // A token without an expiry is used for this run only.
      until: Number.isFinite(expiresIn) && expiresIn > 0 ? now + usableFor(expiresIn) : now
    } satisfies CachedToken
  })

const freshToken = (request: TokenRequest, key: string) =>
  Effect.tap(requestToken(request), (fresh) =>
    Effect.sync(() => {
      cache.delete(key)
      if (cache.size >= cachedTokens) cache.delete(cache.keys().next().value!)
      cache.set(key, fresh)
    })
  )

/**
 * Runs `send` with a bearer token's headers: a cached token while it lasts, else a new one. When
 * the API refuses the token (401), a new one is asked for and `send` runs once more.
 */
export const clientCredentials = (request: TokenRequest) =>
  Effect.gen(function* () {
    const key = cacheKey(request)
    const now = yield* Clock.currentTimeMillis
    const cached = cache.get(key)
    // The token this run uses; a refresh replaces it for the pages after.
    let current = cached !== undefined && now < cached.until ? cached : yield* freshToken(request, key)
    const headersOf = (token: CachedToken) => ({ authorization: `Bearer ${Redacted.value(token.token)}` })
    return <A>(
      send: (headers: Readonly<Record<string, string>>) => Effect.Effect<A, ConnectorFailed, HttpClient.HttpClient>
    ): Effect.Effect<A, ConnectorFailed, HttpClient.HttpClient> =>
      Effect.catchIf(
        Effect.suspend(() => send(headersOf(current))),
        isUnauthorized,
        () =>
          Effect.gen(function* () {
            current = yield* freshToken(request, key)
            return yield* send(headersOf(current))
          })
      )
  })
