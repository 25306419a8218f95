/**
 * One request to the API: the bearer key, a deadline per attempt, the caller's `AbortSignal`,
 * retries by the policy of `retry.ts`, and every failure turned into the client's typed errors.
 * The key lives in a private field and is only ever written into the `Authorization` header.
 */
import { ConnectionError, errorFromAnswer, type PartnerReceivablesError } from "./errors.ts"
import { parseRateLimitReset, parseRetryAfter, type RetryPolicy, retryDelayMs } from "./retry.ts"

/** Time as the client sees it; replace it to test retries without waiting. */
export interface Clock {
  readonly now: () => number
  readonly sleep: (ms: number, signal: AbortSignal | undefined) => Promise<void>
}

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })

export const systemClock: Clock = { now: () => Date.now(), sleep }

export interface TransportOptions {
  readonly apiKey: string
  readonly baseUrl: string
  readonly fetch: typeof fetch
  readonly retry: RetryPolicy
  readonly timeoutMs: number
  readonly clock: Clock
  readonly random: () => number
}

export interface RequestOptions {
  /** Abort the request, including any wait between its retries. */
  readonly signal?: AbortSignal | undefined
}

type Attempt =
  | { readonly ok: true; readonly body: unknown }
  | { readonly ok: false; readonly status: number | undefined; readonly error: PartnerReceivablesError }

export class Transport {
  readonly #apiKey: string
  readonly #options: TransportOptions

  constructor(options: TransportOptions) {
    this.#apiKey = options.apiKey
    this.#options = options
  }

  /** GET `path` (from `/v1/...`, with its query string): the decoded JSON of a 2xx answer. */
  get<A>(path: string, options: RequestOptions = {}): Promise<A> {
    return this.send<A>("GET", path, undefined, options)
  }

  /**
   * `method` on `path` with `body` as JSON, if any. A write is tried again only after a 429, which
   * the API answers before doing anything: after any other failure it may have taken effect.
   */
  async send<A>(method: string, path: string, body: unknown, options: RequestOptions = {}): Promise<A> {
    const { retry, clock, random } = this.#options
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.#attempt(method, path, body, options.signal)
      if (outcome.ok) return outcome.body as A
      if (method !== "GET" && outcome.status !== 429) throw outcome.error
      const wait = retryDelayMs(
        { status: outcome.status, retryAfter: outcome.error.retryAfter },
        attempt,
        retry,
        random()
      )
      if (wait === undefined) throw outcome.error
      await clock.sleep(wait, options.signal)
    }
  }

  async #attempt(method: string, path: string, body: unknown, signal: AbortSignal | undefined): Promise<Attempt> {
    signal?.throwIfAborted()
    const controller = new AbortController()
    let timedOut = false
    const onAbort = () => controller.abort(signal?.reason)
    signal?.addEventListener("abort", onAbort, { once: true })
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, this.#options.timeoutMs)
    try {
      const response = await this.#options.fetch(`${this.#options.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.#apiKey}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" })
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: controller.signal
      })
      return await this.#read(response)
    } catch (cause) {
      // The caller's own abort is theirs to handle, not a failure to retry.
      if (signal?.aborted) throw signal.reason
      const error = new ConnectionError({
        status: undefined,
        code: timedOut ? "timeout" : "connection_failed",
        message: timedOut
          ? `${method} ${pathOnly(path)} got no answer within ${this.#options.timeoutMs} ms.`
          : `${method} ${pathOnly(path)} failed before an answer arrived: ${describe(cause)}`,
        cause
      })
      return { ok: false, status: undefined, error }
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener("abort", onAbort)
    }
  }

  async #read(response: Response): Promise<Attempt> {
    const text = await response.text()
    const body = parseJson(text)
    if (response.ok && body !== invalid) return { ok: true, body }
    const status = response.status
    const requestId = response.headers.get("request-id") ?? undefined
    const retryAfter =
      parseRetryAfter(response.headers.get("retry-after"), this.#options.clock.now()) ??
      (status === 429 ? parseRateLimitReset(response.headers.get("ratelimit-reset")) : undefined)
    // A 2xx whose body is not JSON is no answer of the API's: reported as unexpected_response.
    const error = errorFromAnswer({ status, body: response.ok ? undefined : body, requestId, retryAfter })
    return { ok: false, status, error }
  }
}

const invalid = Symbol("invalid")

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return invalid
  }
}

// The query may hold ids and dates; the path alone says which request failed.
const pathOnly = (path: string) => path.split("?")[0]

const describe = (cause: unknown) => {
  if (!(cause instanceof Error)) return String(cause)
  const inner = cause.cause instanceof Error ? ` (${cause.cause.message})` : ""
  return `${cause.message}${inner}`
}
