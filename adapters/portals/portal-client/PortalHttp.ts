/**
 * HTTP for connectors that poll a portal's API, over the `HttpClient` of the context (the app's
 * is the runtime's `fetch`, see `HttpConnector.ts`). One origin per integration: every request,
 * page link and redirect must stay on the configured scheme, host and port, so credentials never
 * reach another host. The client refuses any request to another origin before it is sent, and
 * redirects are followed here, hop by hop through that client (a fetch-based client is told not
 * to follow one itself). Answers are classified the way the scheduler needs them: timeouts,
 * network errors, 408, 429 and 5xx are retryable (with the portal's `Retry-After`); refused
 * credentials and other 4xx are permanent. Messages name the origin and path, never a header. An
 * answer is read up to a size limit and no further, and decoded strictly (its byte-order mark,
 * else its `charset`, else UTF-8): a page too large or not text fails for good.
 */
import { Clock, Duration, Effect, Option, Result, Schema, Stream } from "effect"
import {
  FetchHttpClient,
  Headers,
  HttpBody,
  HttpClient,
  type HttpClientError,
  HttpClientRequest,
  type HttpClientResponse
} from "effect/http"
import { ConnectorFailed, permanentFailure, retryableFailure } from "../../../core/receivables/ports/PortalConnector.ts"
import { knownEncoding, textDecoding } from "../text/Decoding.ts"

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
  /** The most one exchange (each redirect its own) may take, from sending to the answer's last byte. */
  readonly timeoutSeconds: number
  /** The most bytes of the answer read (default `defaultMaxBodyBytes`); a larger answer fails the run. */
  readonly maxBodyBytes?: number
  /** The configuration setting that raises that limit, for the message. */
  readonly maxBodySetting?: string
}

/** The largest answer read when the connector says nothing else: 16 MiB. */
export const defaultMaxBodyBytes = 16 * 1024 * 1024

const sizeText = (bytes: number) =>
  bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20} MiB` : `${bytes.toLocaleString("en")} bytes`

export interface PortalAnswer {
  readonly body: unknown
  /** The answer's headers, by lower-case name (`Headers.get(headers, "link")`). */
  readonly headers: Headers.Headers
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

const header = (headers: Headers.Headers, name: string) => Option.getOrNull(Headers.get(headers, name))

// Failures that were a 401: a connector holding a token that can be renewed tries once more.
const unauthorized = new WeakSet<ConnectorFailed>()

/** Whether the portal refused the request's credentials with a 401 (a token expired or revoked). */
export const isUnauthorized = (failure: ConnectorFailed) => unauthorized.has(failure)

const statusFailure = (url: URL, response: HttpClientResponse.HttpClientResponse): ConnectorFailed => {
  const status = response.status
  const retryAfter = retryAfterSeconds(header(response.headers, "retry-after"))
  const retryable = status === 408 || status === 429 || status >= 500
  const why =
    status === 401 || status === 403
      ? `refused the credentials (${status})`
      : status === 429
        ? "is rate limiting us (429)"
        : `answered ${status}`
  const failure = new ConnectorFailed({
    message: `${place(url)} ${why}`,
    retryable,
    ...(retryable && retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {})
  })
  if (status === 401) unauthorized.add(failure)
  return failure
}

/** A request that failed on the way (refused connection, reset, DNS): retryable, with the system's code. */
const networkFailure = (url: URL, error: HttpClientError.HttpClientError): ConnectorFailed => {
  const reason: unknown = error.reason.cause
  const cause = reason instanceof Error && reason.cause instanceof Error ? reason.cause : reason
  const code = (cause as { code?: unknown } | undefined)?.code
  return new ConnectorFailed({
    message: `${url.origin} cannot be reached${typeof code === "string" ? ` (${code})` : ""}`,
    retryable: true
  })
}

/** Nothing is sent outside the integration's origin: a request elsewhere fails before it is sent. */
const sameOrigin = (origin: string, request: HttpClientRequest.HttpClientRequest) => {
  const to = URL.canParse(request.url) ? new URL(request.url).origin : request.url
  return to === origin
    ? Effect.void
    : Effect.fail(permanentFailure(`refused to contact ${to}: this integration only contacts ${origin}`))
}

/**
 * The client for one portal: effect's `HttpClient`, checking the origin of every request it
 * executes (so of each redirect hop and page link too), with each request's connection tied to a
 * scope, so an answer left unread is dropped when its exchange ends.
 */
const portalClient = (origin: string) =>
  Effect.map(HttpClient.HttpClient, (client) =>
    client.pipe(
      HttpClient.withScope,
      HttpClient.transform((send, request) => Effect.andThen(sameOrigin(origin, request), send))
    )
  )

type PortalClient = Effect.Success<ReturnType<typeof portalClient>>

const outgoing = (target: URL, request: PortalRequest) => {
  const headers = Headers.fromInput({ accept: "application/json", ...request.headers })
  const sent = HttpClientRequest.make(request.method ?? "GET")(target.href, { headers })
  if (request.body === undefined) return sent
  // A string body is sent as fetch sends one: the caller's content type, else plain UTF-8 text.
  const contentType = Option.getOrElse(Headers.get(headers, "content-type"), () => "text/plain;charset=UTF-8")
  return HttpClientRequest.setBody(sent, HttpBody.text(request.body, contentType))
}

const wallClock = Clock.Clock.defaultValue()

/** One request and its answer, read and decoded, or where it redirects: within the time allowed. */
const exchange = (client: PortalClient, target: URL, request: PortalRequest) =>
  Effect.gen(function* () {
    const response = yield* client
      .execute(outgoing(target, request))
      .pipe(Effect.catchTag("HttpClientError", (error) => Effect.fail(networkFailure(target, error))))
    const location = header(response.headers, "location")
    if (response.status >= 300 && response.status < 400 && location !== null) {
      return { _tag: "Redirect", location } as const
    }
    if (response.status < 200 || response.status >= 300) return yield* statusFailure(target, response)
    const text = yield* readText(target, response, request)
    const body = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: () => permanentFailure(`${place(target)} answered with something that is not JSON`)
    })
    const answer: PortalAnswer = { body, headers: response.headers }
    return { _tag: "Answer", answer } as const
  }).pipe(
    Effect.timeoutOrElse({
      duration: Duration.seconds(request.timeoutSeconds),
      orElse: () => Effect.fail(retryableFailure(`${place(target)} did not answer within ${request.timeoutSeconds} s`))
    }),
    // A deadline on the wire runs on the wall clock, whatever clock the caller's fiber has (a test's too).
    Effect.provideService(Clock.Clock, wallClock),
    // Ends the request: an answer not read (a redirect, an error status, one too large) is dropped.
    Effect.scoped
  )

/**
 * Sends a request to the portal at `origin` and reads its JSON answer, following redirects
 * only within that origin.
 */
export const requestJson = (
  origin: string,
  request: PortalRequest
): Effect.Effect<PortalAnswer, ConnectorFailed, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const client = yield* portalClient(origin)
    let url = request.url
    for (let redirects = 0; ; redirects++) {
      const target = url
      const hop = yield* exchange(client, target, request)
      if (hop._tag === "Answer") return hop.answer
      if (redirects >= maxRedirects)
        return yield* permanentFailure(`${place(target)} redirects more than ${maxRedirects} times`)
      if (!URL.canParse(hop.location, target.href)) {
        return yield* permanentFailure(`${place(target)} redirects to something that is not a URL`)
      }
      url = new URL(hop.location, target)
    }
  }).pipe(
    // A fetch-based client is told to hand redirects back rather than follow them (one it followed
    // would skip the origin check): the request's context overrides the client's own. No trace
    // headers either: a portal sees the request it always did.
    Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }),
    Effect.provideService(HttpClient.TracerPropagationEnabled, false)
  )

type Read = { readonly _tag: "Read"; readonly bytes: Uint8Array } | { readonly _tag: "TooLarge" }

/**
 * The answer's bytes, up to the limit: reading stops (and the rest is refused) as soon as the
 * limit is passed, so a page of any size costs at most the limit in memory.
 */
const readBytes = (target: URL, response: HttpClientResponse.HttpClientResponse, limit: number) => {
  const declared = Number(header(response.headers, "content-length") ?? Number.NaN)
  if (declared > limit) return Effect.succeed<Read>({ _tag: "TooLarge" })
  const parts: Array<Uint8Array> = []
  let length = 0
  return response.stream.pipe(
    Stream.catch((error) =>
      error.reason._tag === "EmptyBodyError" ? Stream.empty : Stream.fail(networkFailure(target, error))
    ),
    Stream.runForEachWhile((part) =>
      Effect.sync(() => {
        length += part.length
        if (length > limit) return false
        parts.push(part)
        return true
      })
    ),
    Effect.map((): Read => (length > limit ? { _tag: "TooLarge" } : { _tag: "Read", bytes: Buffer.concat(parts) }))
  )
}

// The answer's declared charset, when `TextDecoder` knows it; JSON's own is UTF-8 (RFC 8259).
const charsetOf = (response: HttpClientResponse.HttpClientResponse) => {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(header(response.headers, "content-type") ?? "")?.[1]
  return charset !== undefined && knownEncoding(charset) ? charset.toLowerCase() : "utf-8"
}

const readText = Effect.fnUntraced(function* (
  target: URL,
  response: HttpClientResponse.HttpClientResponse,
  request: PortalRequest
) {
  const limit = request.maxBodyBytes ?? defaultMaxBodyBytes
  const read = yield* readBytes(target, response, limit)
  if (read._tag === "TooLarge") {
    const setting = request.maxBodySetting
    return yield* permanentFailure(
      `${place(target)} answered more than ${sizeText(limit)}` +
        (setting === undefined
          ? ", the most a page may have"
          : ` (the "${setting}" setting): ask for smaller pages, or raise "${setting}"`)
    )
  }
  const decoding = textDecoding(charsetOf(response))
  const text = Result.flatMap(decoding.push(read.bytes), (head) => Result.map(decoding.end(), (tail) => head + tail))
  if (Result.isSuccess(text)) return text.success
  return yield* permanentFailure(
    `${place(target)} answered text that is not valid ${text.failure.encoding} at byte ${text.failure.byteOffset}`
  )
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

/** A JSON value kept as metadata: text trimmed, numbers and booleans, objects and arrays as their JSON text. */
export const metadataText = (value: unknown): string =>
  value !== null && typeof value === "object" ? JSON.stringify(value) : jsonText(value)

/** A JSON value as the text a portal means by it: numbers as JavaScript writes them (exact for cents); objects are no text. */
export const jsonText = (value: unknown): string =>
  typeof value === "string"
    ? value.trim()
    : typeof value === "number" || typeof value === "boolean"
      ? String(value)
      : ""
