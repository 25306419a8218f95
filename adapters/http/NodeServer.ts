/**
 * The Node HTTP server the API runs on, with explicit, documented limits, and Node's own
 * rejections (a request it cannot parse, headers over the limit, a client too slow to send its
 * request) answered like every other error: the documented JSON body, a `Request-Id`, an audit
 * entry committed before the answer leaves, and a count in the metrics; and its graceful drain
 * on a stop. `serve` puts it all together for the app and the tests.
 */
import { createServer, type IncomingMessage, type Server } from "node:http"
import { Server as NetServer } from "node:net"
import type { Duplex } from "node:stream"
import { NodeHttpServer } from "@effect/platform-node"
import { Clock, Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { MethodNotAllowed, ResourceMissing } from "../../core/api/Errors.ts"
import { AuditLog } from "../../core/ports/AuditLog.ts"
import { IdSource } from "../../core/ports/IdSource.ts"
import * as ApiKeys from "../../core/services/ApiKeys.ts"
import * as ConnectionBudget from "./ConnectionBudget.ts"
import { AddressLimiter } from "./pipeline/AddressLimiter.ts"
import * as Audit from "./pipeline/Audit.ts"
import { ClientAddress } from "./pipeline/ClientAddress.ts"
import { RequestContext } from "./pipeline/RequestContext.ts"
import * as RequestPath from "./pipeline/RequestPath.ts"
import { observeRequest } from "./probes/Metrics.ts"

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
  /** Connections open at once; more are refused until some close. Per address: `ConnectionBudget`. */
  maxConnections: 2_000
} as const

export type Limits = { readonly [K in keyof typeof limits]: number }

/** A server with the limits above (tests may shorten them), for `NodeHttpServer.layer`. */
export const create = (overrides: Partial<Limits> = {}): Server => {
  const chosen = { ...limits, ...overrides }
  const server = createServer({
    maxHeaderSize: chosen.maxHeaderBytes,
    headersTimeout: chosen.headersTimeoutMillis,
    requestTimeout: chosen.requestTimeoutMillis,
    keepAliveTimeout: chosen.keepAliveTimeoutMillis,
    // How often Node looks for requests over their timeouts: a tenth of the shortest.
    connectionsCheckingInterval: Math.max(50, Math.min(chosen.headersTimeoutMillis, chosen.requestTimeoutMillis) / 10)
  })
  server.maxConnections = chosen.maxConnections
  return server
}

interface Rejection {
  readonly status: number
  readonly reason: string
  readonly code: string
  readonly message: string
  /** The methods the path answers, for a 405. */
  readonly allow?: string
}

const rejectionOf = (error: NodeJS.ErrnoException): Rejection => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        status: 431,
        reason: "Request Header Fields Too Large",
        code: "request_headers_too_large",
        message: `The request line and headers exceed ${limits.maxHeaderBytes} bytes.`
      }
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return {
        status: 408,
        reason: "Request Timeout",
        code: "request_timeout",
        message: "The request was not received in time."
      }
    default:
      return {
        status: 400,
        reason: "Bad Request",
        code: "request_malformed",
        message: "The request is not valid HTTP/1.1."
      }
  }
}

// `CONNECT` asks for a tunnel, which Node hands over as a bare socket rather than a request (and
// closes without a word when nobody takes it). The service is no proxy: the path is answered as
// the pipeline answers any other method, 404 where it names no route, 405 where it does.
const connectRejection = (request: RequestContext): Rejection =>
  request.route === undefined
    ? {
        status: 404,
        reason: "Not Found",
        code: "resource_missing",
        message: ResourceMissing.route(request.method, request.shownPath).error.message
      }
    : {
        status: 405,
        reason: "Method Not Allowed",
        code: "method_not_allowed",
        message: MethodNotAllowed.of(request.method, request.shownPath).error.message,
        allow: "GET"
      }

// What little of the request line can be read from the bytes Node refused, for the audit log.
const requestLineOf = (error: NodeJS.ErrnoException & { readonly rawPacket?: Buffer }) => {
  const line = error.rawPacket?.subarray(0, 2_048).toString("latin1").split("\r\n", 1)[0] ?? ""
  const [method = "", target = ""] = line.split(" ", 2)
  return { method: /^[A-Z]{1,16}$/.test(method) ? method : "", target }
}

const answer = (socket: Duplex, rejection: Rejection, requestId: string) => {
  const body = JSON.stringify({
    error: { type: "invalid_request_error", code: rejection.code, message: rejection.message }
  })
  socket.end(
    `HTTP/1.1 ${rejection.status} ${rejection.reason}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nrequest-id: ${requestId}\r\n` +
      (rejection.allow === undefined ? "" : `allow: ${rejection.allow}\r\n`) +
      `connection: close\r\n\r\n${body}`
  )
}

/**
 * Answers, audits and counts Node's own rejections, and `CONNECT` requests, on `server` while the
 * layer lives.
 */
export const rejectionsLayer = (server: Server) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const audit = yield* AuditLog
      const addresses = yield* AddressLimiter
      const ids = yield* IdSource
      const clientAddress = yield* ClientAddress
      const keyBrand = yield* ApiKeys.brand
      const context = yield* Effect.context<never>()
      const reject = (
        socket: Duplex,
        line: { readonly method: string; readonly target: string },
        routeLabel: (request: RequestContext) => string,
        rejectionFor: (request: RequestContext) => Rejection
      ) => {
        const peer = (socket as Duplex & { readonly remoteAddress?: string }).remoteAddress
        const record = Effect.gen(function* () {
          const request = new RequestContext({
            requestId: ids.requestId(),
            method: line.method,
            target: line.target,
            startedMillis: yield* Clock.currentTimeMillis,
            startedNanos: yield* Clock.currentTimeNanos,
            clientAddress: clientAddress.of(peer, undefined),
            secure: false,
            // Decided as if the dashboard were served: its paths are not unknown to this service.
            dashboardMounted: true,
            headers: {},
            keyBrand
          })
          const rejection = rejectionFor(request)
          // No key vouches for a request answered here: it spends its address's allowance.
          if (request.clientAddress !== null) yield* addresses.spend(request.clientAddress)
          yield* audit.record(Audit.entryOf(request, rejection.status, 0))
          return { request, rejection }
        })
        Effect.runForkWith(context)(
          Effect.matchEffect(record, {
            onFailure: () => Effect.sync(() => socket.destroy()),
            onSuccess: ({ request, rejection }) =>
              Effect.andThen(
                observeRequest(line.method, routeLabel(request), rejection.status, 0),
                Effect.sync(() => answer(socket, rejection, request.requestId))
              )
          })
        )
      }
      const onClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
        // A connection reset has no one to answer; a socket already written to cannot take an answer.
        if (error.code === "ECONNRESET" || !socket.writable) return socket.destroy()
        const rejection = rejectionOf(error)
        reject(
          socket,
          requestLineOf(error),
          () => "unparsed",
          () => rejection
        )
      }
      const onConnect = (request: IncomingMessage, socket: Duplex) =>
        reject(
          socket,
          { method: "CONNECT", target: request.url ?? "" },
          (decided) => decided.route?.pattern ?? "unmatched",
          connectRejection
        )
      server.on("clientError", onClientError)
      server.on("connect", onConnect)
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          server.off("clientError", onClientError)
          server.off("connect", onConnect)
        })
      )
    })
  )

/**
 * Stops accepting connections and resolves once every request in flight has been answered (and
 * audited), or after the drain timeout. Only then is the program interrupted, so a stop resets
 * no connection that was being served.
 */
export const drain = (http: Server) =>
  new Promise<void>((resolve) => {
    if (!http.listening) return resolve()
    // Connections the kernel has accepted but Node has not yet taken would be reset when the
    // listening socket closes: keep listening a moment so that they are taken and served.
    setTimeout(() => closeAndDrain(http, resolve), acceptGraceMillis)
  })

/** How long a stop waits for the requests in flight to be answered. */
const drainTimeoutMillis = 15_000

const acceptGraceMillis = 500

const closeAndDrain = (http: Server, resolve: () => void) => {
  // Node's own `server.close()` also drops idle connections at once, among them connections
  // accepted a moment ago whose request has not been read yet: their clients would see a reset.
  // So only the listening socket is closed; idle connections are dropped after a grace period.
  const idle = setInterval(() => http.closeIdleConnections(), 500)
  const timer = setTimeout(() => {
    http.closeAllConnections()
    finish()
  }, drainTimeoutMillis)
  const finish = () => {
    clearInterval(idle)
    clearTimeout(timer)
    resolve()
  }
  NetServer.prototype.close.call(http, finish)
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

// Runs the drain when the layer is released. It is built after the routes are served, so it is
// released before them: requests in flight are answered before effect's server closes, which
// would also drop connections accepted a moment ago whose request is not read yet.
const drainOnStop = (http: Server) => Layer.effectDiscard(Effect.addFinalizer(() => Effect.promise(() => drain(http))))

/**
 * `routes` served on a Node server with the limits above, Node's own rejections answered and
 * audited like every other request, and a drain of the requests in flight when the layer is
 * released (a stop of the app).
 */
export const serve = <A, E, R>(routes: Layer.Layer<A, E, R>, options: ListenOptions) =>
  Layer.unwrap(
    Effect.sync(() => {
      const http = create(options.limits)
      const served = HttpRouter.serve(routes, {
        routerConfig: RequestPath.routerConfig,
        disableLogger: true,
        disableListenLog: options.listenLog !== true
      })
      return Layer.mergeAll(
        drainOnStop(http).pipe(Layer.provideMerge(served)),
        rejectionsLayer(http),
        ConnectionBudget.layer(http)
      ).pipe(Layer.provide(NodeHttpServer.layer(() => http, { port: options.port, host: options.host })))
    })
  )
