/**
 * The Node HTTP server the API runs on, with explicit, documented limits, and Node's own
 * rejections (a request it cannot parse, headers over the limit, a client too slow to send its
 * request) answered like every other error: the documented JSON body, a `Request-Id`, an audit
 * entry committed before the answer leaves, and a count in the metrics; and its graceful drain
 * on a stop.
 */
import { createServer, type Server } from "node:http"
import { Server as NetServer } from "node:net"
import type { Duplex } from "node:stream"
import { Clock, DateTime, Effect, Layer } from "effect"
import { redactKeys } from "../../core/domain/ApiKey.ts"
import { AuditLog } from "../../core/ports/AuditLog.ts"
import { IdSource } from "../../core/ports/IdSource.ts"
import { AddressLimiter } from "./AddressLimiter.ts"
import { ClientAddress } from "./ClientAddress.ts"
import { observeRequest } from "./Metrics.ts"

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
  /** Connections open at once; more are refused until some close. */
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

// What little of the request line can be read from the bytes Node refused, for the audit log.
const requestLineOf = (error: NodeJS.ErrnoException & { readonly rawPacket?: Buffer }) => {
  const line = error.rawPacket?.subarray(0, 2_048).toString("latin1").split("\r\n", 1)[0] ?? ""
  const [method = "", target = ""] = line.split(" ", 2)
  const queryAt = target.indexOf("?")
  return {
    method: /^[A-Z]{1,16}$/.test(method) ? method : "",
    path: redactKeys(queryAt < 0 ? target : target.slice(0, queryAt)),
    query: queryAt < 0 ? "" : redactKeys(target.slice(queryAt + 1))
  }
}

const answer = (socket: Duplex, rejection: Rejection, requestId: string) => {
  const body = JSON.stringify({
    error: { type: "invalid_request_error", code: rejection.code, message: rejection.message }
  })
  socket.end(
    `HTTP/1.1 ${rejection.status} ${rejection.reason}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nrequest-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`
  )
}

/** Answers, audits and counts Node's own rejections on `server` while the layer lives. */
export const rejectionsLayer = (server: Server) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const audit = yield* AuditLog
      const addresses = yield* AddressLimiter
      const ids = yield* IdSource
      const clientAddress = yield* ClientAddress
      const context = yield* Effect.context<never>()
      const onClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
        // A connection reset has no one to answer; a socket already written to cannot take an answer.
        if (error.code === "ECONNRESET" || !socket.writable) return socket.destroy()
        const rejection = rejectionOf(error)
        const requestId = ids.requestId()
        const { method, path, query } = requestLineOf(error)
        const peer = (socket as Duplex & { readonly remoteAddress?: string }).remoteAddress
        const client = clientAddress.of(peer, undefined)
        const record = Effect.gen(function* () {
          // No key vouches for a request Node could not even read: it spends its address's allowance.
          if (client !== null) yield* addresses.spend(client)
          const at = yield* Clock.currentTimeMillis
          yield* audit.record({
            at: DateTime.makeUnsafe(at),
            requestId,
            keyId: null,
            orgId: null,
            method,
            path,
            query,
            status: rejection.status,
            durationMs: 0,
            clientAddress: client
          })
        })
        Effect.runForkWith(context)(
          Effect.matchEffect(record, {
            onFailure: () => Effect.sync(() => socket.destroy()),
            onSuccess: () =>
              Effect.andThen(
                observeRequest(method, "unparsed", rejection.status, 0),
                Effect.sync(() => answer(socket, rejection, requestId))
              )
          })
        )
      }
      server.on("clientError", onClientError)
      yield* Effect.addFinalizer(() => Effect.sync(() => server.off("clientError", onClientError)))
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
