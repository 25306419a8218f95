/**
 * Portals in process, for connectors that poll an API: each mock portal is a handler at an origin
 * of its own (`https://p1.portal.test`), reached through effect's `FetchHttpClient`, as the app
 * reaches portals, with a `fetch` that calls the handler instead of opening a socket. Checks that
 * stream 100,000 documents then cost no ports and no HTTP parsing. A request to an origin no
 * portal serves fails as a refused connection does; a portal that never answers holds the request
 * until the client gives up on it. `test/support/MockPortal.ts` serves the same handlers on a
 * loopback port, for the tests of the wire itself.
 */
import { Effect, Layer, type Scope } from "effect"
import { FetchHttpClient } from "effect/http"
import * as HttpConnector from "../../../adapters/portals/portal-client/HttpConnector.ts"
import type { PortalConnector } from "../../../core/receivables/ports/PortalConnector.ts"
import { type Handler, type MockPortal, mockPortal } from "../MockPortal.ts"

interface Served {
  readonly handler: Handler
  readonly requests: Array<URL>
}

/** As Node's `fetch` fails when nothing listens: a `TypeError` whose cause has the system's code. */
const refused = (url: URL) =>
  new TypeError("fetch failed", {
    cause: Object.assign(new Error(`connect ECONNREFUSED ${url.host}`), { code: "ECONNREFUSED" })
  })

/** Settles only when the request is aborted, as a portal that never answers. */
const unanswered = (signal: AbortSignal | null | undefined) =>
  new Promise<Response>((_, reject) => {
    if (signal?.aborted) reject(signal.reason)
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true })
  })

const fetchFrom =
  (portals: ReadonlyMap<string, Served>): typeof globalThis.fetch =>
  // Reads the arguments as effect's `FetchHttpClient` passes them, without `new Request`, which
  // keeps memory alive per request (undici ties it to the signal) and would fail the heap check.
  async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : input)
    const portal = portals.get(url.origin)
    if (portal === undefined) throw refused(url)
    const body = init.body === undefined || init.body === null ? "" : await new Response(init.body).text()
    portal.requests.push(url)
    const headers = Object.fromEntries(new Headers(init.headers))
    const answer = await portal.handler({ method: init.method ?? "GET", headers }, url, body)
    if (answer === undefined) return unanswered(init.signal)
    return new Response(answer.json === undefined ? null : JSON.stringify(answer.json), {
      status: answer.status,
      headers: { "content-type": "application/json", ...answer.headers }
    })
  }

/** Where a fixture's mock portals run, and how its connector reaches them. */
export interface PortalNetwork {
  /** Serves `handler` at an origin of its own until the scope closes. */
  readonly serve: (handler: Handler) => Effect.Effect<MockPortal, never, Scope.Scope>
  /** The connector, reaching this network's portals. */
  readonly connect: (connector: HttpConnector.HttpPortalConnector) => PortalConnector
}

/** Portals on loopback ports, reached as the app reaches any portal: for a process of the app, too. */
export const loopback: PortalNetwork = {
  serve: mockPortal,
  connect: (connector) => HttpConnector.withHttp(connector, HttpConnector.layer)
}

/** A network of portals in this process, reachable only through its own connectors. */
export const makePortalNetwork = (): PortalNetwork => {
  const portals = new Map<string, Served>()
  let next = 0
  const http = FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.Fetch, fetchFrom(portals))))
  return {
    serve: (handler) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const origin = `https://p${++next}.portal.test`
          const served: Served = { handler, requests: [] }
          portals.set(origin, served)
          return { origin, requests: served.requests }
        }),
        ({ origin }) => Effect.sync(() => portals.delete(origin))
      ),
    connect: (connector) => HttpConnector.withHttp(connector, http)
  }
}
