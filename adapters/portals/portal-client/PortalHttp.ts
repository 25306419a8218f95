/**
 * HTTP for connectors that poll a portal's API. One origin per integration: every request, page
 * link and redirect must stay on the configured scheme, host and port, so credentials never
 * reach another host. Answers are classified the way the scheduler needs them: timeouts,
 * network errors, 408, 429 and 5xx are retryable (with the portal's `Retry-After`); refused
 * credentials and other 4xx are permanent. Messages name the origin and path, never a header.
 * An answer is read up to a size limit and no further, and decoded strictly (its byte-order mark,
 * else its `charset`, else UTF-8): a page too large or not text fails for good.
 */
import { Effect, Result, Schema } from "effect"
import { ConnectorFailed, permanentFailure, retryableFailure } from "../../../core/ports/PortalConnector.ts"
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
      const text = yield* readText(target, response, request)
      const body = yield* Effect.try({
        try: () => JSON.parse(text) as unknown,
        catch: () => permanentFailure(`${place(target)} answered with something that is not JSON`)
      })
      return { body, headers: response.headers }
    }
  })

type Read = { readonly _tag: "Read"; readonly bytes: Uint8Array } | { readonly _tag: "TooLarge" }

/**
 * The answer's bytes, up to the limit: reading stops (and the rest is refused) as soon as the
 * limit is passed, so a page of any size costs at most the limit in memory.
 */
const readBytes = async (response: Response, limit: number, signal: AbortSignal): Promise<Read> => {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN)
  if (declared > limit || response.body === null) {
    await response.body?.cancel()
    return declared > limit ? { _tag: "TooLarge" } : { _tag: "Read", bytes: new Uint8Array(0) }
  }
  const reader = response.body.getReader()
  signal.addEventListener("abort", () => void reader.cancel(signal.reason).catch(() => undefined))
  const parts: Array<Uint8Array> = []
  let length = 0
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    length += part.value.length
    if (length > limit) {
      await reader.cancel()
      return { _tag: "TooLarge" }
    }
    parts.push(part.value)
  }
  return { _tag: "Read", bytes: Buffer.concat(parts) }
}

// The answer's declared charset, when `TextDecoder` knows it; JSON's own is UTF-8 (RFC 8259).
const charsetOf = (response: Response) => {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(response.headers.get("content-type") ?? "")?.[1]
  return charset !== undefined && knownEncoding(charset) ? charset.toLowerCase() : "utf-8"
}

const readText = Effect.fnUntraced(function* (target: URL, response: Response, request: PortalRequest) {
  const limit = request.maxBodyBytes ?? defaultMaxBodyBytes
  const read = yield* Effect.tryPromise({
    try: (signal) => readBytes(response, limit, signal),
    catch: (error) => networkFailure(target, request, error)
  })
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
