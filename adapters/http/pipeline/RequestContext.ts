/**
 * Everything the pipeline learns about one request, in one value made when the request arrives
 * and passed to every step: its id and start, its path decided once, the client's address, and
 * (filled in by the key's check, deep inside) the caller and where the caller stands with its
 * rate limit. The steps receive it as an argument; the handlers the router runs (the key's check,
 * the dashboard's pages) read it as `CurrentRequest`. It lives exactly as long as its request.
 */
import { Context } from "effect"
import type { KeyOwner } from "../../../core/access/services/ApiKeys.ts"
import * as RequestPath from "./RequestPath.ts"

export interface RateLimitState {
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
  readonly retryAfterSeconds: number
}

/** What a request tells about itself when it arrives, read once. */
export interface Arrival {
  readonly requestId: string
  readonly method: string
  /** The request target as received: the path and the query. */
  readonly target: string
  readonly startedMillis: number
  readonly startedNanos: bigint
  /** The client's address as the listener decided it (trusted proxies applied); null if unknown. */
  readonly clientAddress: string | null
  /** Whether the client reached the service over HTTPS (directly, or as a trusted proxy said). */
  readonly secure: boolean
  readonly dashboardMounted: boolean
  readonly headers: RequestHeaders
  /** The brand of this service's keys (`KEY_BRAND`), so that a secret without its prefix is redacted too. */
  readonly keyBrand: string
}

export interface RequestHeaders {
  readonly [name: string]: string | undefined
}

export class RequestContext {
  readonly requestId: string
  readonly method: string
  readonly path: string
  readonly query: string
  readonly route: RequestPath.Route | undefined
  /** The path as logs and the audit keep it: keys and the dashboard's tokens redacted. */
  readonly shownPath: string
  /** The query likewise. */
  readonly shownQuery: string
  readonly startedMillis: number
  readonly startedNanos: bigint
  readonly clientAddress: string | null
  readonly secure: boolean
  readonly headers: RequestHeaders
  /** Whose key the request carried: an accepted key's owner, or a revoked key's (for the audit). */
  owner: KeyOwner | undefined = undefined
  /** Whether a live key vouched for the request (else it spends its address's allowance). */
  authenticated = false
  /** Where the key stands with its rate limit, once counted (for the `RateLimit-*` headers). */
  rateLimit: RateLimitState | undefined = undefined
  /**
   * Whether the request's body was still arriving (`api/WebhooksBody.ts` waits for it): a
   * deadline passed then is the client's delay, answered 408, not the service's 503.
   */
  bodyArriving = false
  /** When the answer was settled, before its audit entry was written. */
  answeredNanos: bigint | undefined = undefined

  constructor(arrival: Arrival) {
    const { path, query, route } = RequestPath.decide(arrival.target, { dashboard: arrival.dashboardMounted })
    this.requestId = arrival.requestId
    this.method = arrival.method
    this.path = path
    this.query = query
    this.route = route
    this.shownPath = RequestPath.redactSecrets(path, arrival.keyBrand)
    this.shownQuery = RequestPath.redactSecrets(query, arrival.keyBrand)
    this.startedMillis = arrival.startedMillis
    this.startedNanos = arrival.startedNanos
    this.clientAddress = arrival.clientAddress
    this.secure = arrival.secure
    this.headers = arrival.headers
  }

  /** A page of the dashboard: answered as HTML and plain text, never as the API's JSON. */
  get dashboard(): boolean {
    return this.route?.dashboard === true
  }

  /** Milliseconds from arrival to `nanos`. */
  millisUntil(nanos: bigint): number {
    return Number(nanos - this.startedNanos) / 1e6
  }
}

/**
 * The request being answered, for what the router runs inside the pipeline. A reference rather
 * than a requirement, since the API's middlewares may require nothing the router does not
 * provide; outside the pipeline (a handler run on its own) it is undefined.
 */
export const CurrentRequest = Context.Reference<RequestContext | undefined>("adapters/http/CurrentRequest", {
  defaultValue: () => undefined
})
