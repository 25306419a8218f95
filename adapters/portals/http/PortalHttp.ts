/**
 * HTTP for connectors that poll a portal's API. One origin per integration: every request, page
 * link and redirect must stay on the configured scheme, host and port, so credentials never
 * reach another host. Answers are classified the way the scheduler needs them: timeouts,
 * network errors, 408, 429 and 5xx are retryable (with the portal's `Retry-After`); refused
 * credentials and other 4xx are permanent. Messages name the origin and path, never a header.
 */
import { Effect, Schema } from "effect"
import { ConnectorFailed, permanentFailure, retryableFailure } from "../../../core/ports/PortalConnector.ts"

/** A portal's base URL: https, or plain http to a loopback address (a local mock or tunnel). */
export const PortalUrl = Schema.String.check(
  Schema.makeFilter(
    (text: string) => {
      if (!URL.canParse(text)) return false
      const url = new URL(text)
      const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)
      return url.protocol === "https:" || (url.protocol === "http:" && loopback)
    },
    { expected: "an https URL (plain http only to localhost)" }
  )
)

export interface PortalRequest {
  readonly url: URL
  readonly headers?: Readonly<Record<string, string>>
  readonly method?: "GET" | "POST"
  readonly body?: string
  readonly timeoutSeconds: number
}

export interface PortalAnswer {
  readonly body: unknown
  readonly headers: Headers
}

const maxRedirects = 5

/** `Retry-After` as seconds: a number of seconds or an HTTP date. */
export const retryAfterSeconds = (header: string | null, now = Date.now()): number | undefined => {
  if (header === null) return undefined
  const text = header.trim()
  if (/^\d+$/.test(text)) return Number(text)
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000))
}

const place = (url: URL) => `${url.origin}${url.pathname}`

const statusFailure = (url: URL, response: Response): ConnectorFailed => {
  const status = response.status
  const retryAfter = retryAfterSeconds(response.headers.get("retry-after"))
  const retryable = status === 408 || status === 429 || status >= 500
  const why =
    status === 401 || status === 403
      ? `refused the credentials (${status})`
      : status === 429
        ? "is rate limiting us (429)"
        : `answered ${status}`
  return new ConnectorFailed({
    message: `${place(url)} ${why}`,
    retryable,
    ...(retryable && retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {})
  })
}

const networkFailure = (url: URL, request: PortalRequest, error: unknown): ConnectorFailed => {
  const name = error instanceof Error ? error.name : ""
  if (name === "TimeoutError") {
    return retryableFailure(`${place(url)} did not answer within ${request.timeoutSeconds} s`)
  }
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error
  const code = (cause as { code?: unknown })?.code
  return new ConnectorFailed({
    message: `${url.origin} cannot be reached${typeof code === "string" ? ` (${code})` : ""}`,
    retryable: true
  })
}

/**
 * Sends a request to the portal at `origin` and reads its JSON answer, following redirects
 * only within that origin.
 */
export const requestJson = (origin: string, request: PortalRequest): Effect.Effect<PortalAnswer, ConnectorFailed> =>
  Effect.gen(function* () {
    let url = request.url
    for (let redirects = 0; ; redirects++) {
      if (url.origin !== origin) {
        return yield* permanentFailure(`refused to contact ${url.origin}: this integration only contacts ${origin}`)
      }
      const target = url
      const response = yield* Effect.tryPromise({
        try: (signal) =>
          fetch(target, {
            method: request.method ?? "GET",
            headers: { accept: "application/json", ...request.headers },
            ...(request.body === undefined ? {} : { body: request.body }),
            redirect: "manual",
            signal: AbortSignal.any([signal, AbortSignal.timeout(request.timeoutSeconds * 1000)])
          }),
        catch: (error) => networkFailure(target, request, error)
      })
      const location = response.headers.get("location")
      if (response.status >= 300 && response.status < 400 && location !== null) {
        yield* Effect.promise(() => response.body?.cancel() ?? Promise.resolve())
        if (redirects >= maxRedirects)
          return yield* permanentFailure(`${place(target)} redirects more than ${maxRedirects} times`)
        url = new URL(location, target)
        continue
      }
      if (!response.ok) {
        yield* Effect.promise(() => response.body?.cancel() ?? Promise.resolve())
        return yield* statusFailure(target, response)
      }
      const text = yield* Effect.tryPromise({
        try: (signal) =>
          Promise.race([
            response.text(),
            new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)))
          ]),
        catch: (error) => networkFailure(target, request, error)
      })
      const body = yield* Effect.try({
        try: () => JSON.parse(text) as unknown,
        catch: () => permanentFailure(`${place(target)} answered with something that is not JSON`)
      })
      return { body, headers: response.headers }
    }
  })

/** The URL of the `rel="next"` link of a `Link` header (RFC 8288), if any. */
export const nextLink = (header: string | null, base: URL): URL | undefined => {
  if (header === null) return undefined
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part)
    if (match === null) continue
    const relations = /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(match[2]!)?.[1]?.toLowerCase().split(/\s+/) ?? []
    if (relations.includes("next")) return new URL(match[1]!, base)
  }
  return undefined
}

/** A value at a dotted path (`meta.next_cursor`) in a decoded JSON answer; the empty path is the answer. */
export const valueAt = (value: unknown, path: string): unknown =>
  path === ""
    ? value
    : path
        .split(".")
        .reduce<unknown>(
          (current, key) =>
            current !== null && typeof current === "object" ? (current as Record<string, unknown>)[key] : undefined,
          value
        )

/** A JSON value as the text a portal means by it: numbers as JavaScript writes them (exact for cents); objects are no text. */
export const jsonText = (value: unknown): string =>
  typeof value === "string"
    ? value.trim()
    : typeof value === "number" || typeof value === "boolean"
      ? String(value)
      : ""
