/**
 * Where the request being answered comes from, as the HTTP server decided it once (its trusted
 * proxies, its TLS): the client's address and whether the client reached the service over
 * HTTPS. Provided per request by the server; outside a request it is unknown and plain HTTP.
 * A port so that the server and the handlers it runs (the dashboard) need not know each other.
 */
import { Context } from "effect"

export interface Origin {
  readonly clientAddress: string | null
  /** The client's connection was HTTPS (directly, or as a trusted proxy reported it). */
  readonly secure: boolean
}

export const RequestOrigin = Context.Reference<Origin>("core/RequestOrigin", {
  defaultValue: () => ({ clientAddress: null, secure: false })
})
