/**
 * The Node HTTP server the API runs on, with explicit, documented limits. `serve` puts it together
 * for the app and the tests: the routes, Node's own rejections answered like every other error
 * (`Rejections`), connections per client address (`ConnectionBudget`), and the drain of the
 * requests in flight on a stop (`Drain`).
 */
import { createServer, type Server } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Config, Effect, Layer, Schema } from "effect"
import { HttpRouter } from "effect/http"
import * as ConnectionBudget from "./ConnectionBudget.ts"
import { drainOnStop } from "./Drain.ts"
import * as RequestPath from "./pipeline/RequestPath.ts"
import { rejectionsLayer } from "./Rejections.ts"

/** The limits of the listener (docs/operators.md, "Limits"). */
export const limits = {
  /** The request line and every header together, in bytes; more is 431. */
  maxHeaderBytes: 16 * 1024,
  /** How long a client may take to send its headers; longer is 408. */
  headersTimeoutMillis: 10_000,
  /** How long a client may take to send its whole request; longer is 408. */
  requestTimeoutMillis: 30_000,
  /** How long an idle kept-alive connection stays open. */
  keepAliveTimeoutMillis: 5_000,
  /**
   * Connections open at once, the default of `MAX_CONNECTIONS`: past it a new connection takes the
   * slot of one with no request being answered, else is closed (`ConnectionBudget`).
   */
  maxConnections: 2_000
} as const

export type Limits = { readonly [K in keyof typeof limits]: number }

/** Each open connection is a file descriptor: keep it well under the process's `ulimit -n`. */
export const maxConnections = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1_000_000 })),
  "MAX_CONNECTIONS"
).pipe(Config.withDefault(limits.maxConnections))

/**
 * A server with the limits above (tests may shorten them), for `NodeHttpServer.layer`. Its
 * connections are counted by `ConnectionBudget`, not by Node's `maxConnections`, which would close
 * a connection past the cap before the budget could give it another's slot.
 */
export const create = (overrides: Partial<Omit<Limits, "maxConnections">> = {}): Server => {
  const chosen = { ...limits, ...overrides }
  const server = createServer({
    maxHeaderSize: chosen.maxHeaderBytes,
    headersTimeout: chosen.headersTimeoutMillis,
    requestTimeout: chosen.requestTimeoutMillis,
    keepAliveTimeout: chosen.keepAliveTimeoutMillis,
    // How often Node looks for requests over their timeouts: a tenth of the shortest.
    connectionsCheckingInterval: Math.max(50, Math.min(chosen.headersTimeoutMillis, chosen.requestTimeoutMillis) / 10)
  })
  return server
}

/** Where and how the server listens. */
export interface ListenOptions {
  readonly port: number
  readonly host: string
  /** The listener's limits, where tests shorten them. */
  readonly limits?: Partial<Limits> | undefined
  /** Print the address once listening (the app does, tests do not). */
  readonly listenLog?: boolean | undefined
}

/**
 * `routes` served on a Node server with the limits above, Node's own rejections answered and
 * audited like every other request, and a drain of the requests in flight when the layer is
 * released (a stop of the app).
 */
export const serve = <A, E, R>(routes: Layer.Layer<A, E, R>, options: ListenOptions) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const chosen = { ...limits, maxConnections: yield* Effect.orDie(maxConnections), ...options.limits }
      const http = create(chosen)
      const served = HttpRouter.serve(routes, {
        routerConfig: RequestPath.routerConfig,
        disableLogger: true,
        disableListenLog: options.listenLog !== true
      })
      return Layer.mergeAll(
        drainOnStop(http).pipe(Layer.provideMerge(served)),
        rejectionsLayer(http, chosen.maxHeaderBytes),
        ConnectionBudget.layer(http, chosen.maxConnections)
      ).pipe(Layer.provide(NodeHttpServer.layer(() => http, { port: options.port, host: options.host })))
    })
  )
