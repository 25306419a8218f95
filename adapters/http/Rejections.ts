/**
 * Node's own rejections (a request it cannot parse, headers over the limit, a client too slow to
 * send its request, a `CONNECT`) answered like every other error: the documented JSON body, a
 * `Request-Id`, an audit entry built by the pipeline's `Audit` and committed before the answer
 * leaves, and a count in the metrics.
 */
import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"
import { Clock, Effect, Layer } from "effect"
import { AuditLog } from "../../core/access/ports/AuditLog.ts"
import * as ApiKeys from "../../core/access/services/ApiKeys.ts"
import { MethodNotAllowed, ResourceMissing } from "../../core/api/Errors.ts"
import { IdSource } from "../../core/shared/ports/IdSource.ts"
import * as AddressBudget from "./pipeline/AddressBudget.ts"
import * as Audit from "./pipeline/Audit.ts"
import { ClientAddress } from "./pipeline/ClientAddress.ts"
import * as Observe from "./pipeline/Observe.ts"
import { RequestContext } from "./pipeline/RequestContext.ts"

interface Rejection {
  readonly status: number
  readonly reason: string
  readonly code: string
  readonly message: string
  /** The methods the path answers, for a 405. */
  readonly allow?: string
}

const rejectionOf = (error: NodeJS.ErrnoException, maxHeaderBytes: number): Rejection => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        status: 431,
        reason: "Request Header Fields Too Large",
        code: "request_headers_too_large",
        message: `The request line and headers exceed ${maxHeaderBytes} bytes.`
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
 * layer lives; `maxHeaderBytes` is the server's limit on the request line and headers, named in
 * the answer of a request over it. Each spends its address's allowance and is counted in the
 * metrics by the pipeline's own pieces (`AddressBudget`, `Observe`): the same key (an IPv6
 * client by its /64) and the same series as every other answer.
 */
export const rejectionsLayer = (server: Server, maxHeaderBytes: number) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const audit = yield* AuditLog
      const spend = yield* AddressBudget.spender
      const ids = yield* IdSource
      const clientAddress = yield* ClientAddress
      const keyBrand = yield* ApiKeys.brand
      const context = yield* Effect.context<never>()
      const reject = (
        socket: Duplex,
        line: { readonly method: string; readonly target: string },
        route: string | undefined,
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
          yield* spend(request)
          yield* audit.record(Audit.entryOf(request, rejection.status, 0))
          return { request, rejection }
        })
        Effect.runForkWith(context)(
          Effect.matchEffect(record, {
            onFailure: () => Effect.sync(() => socket.destroy()),
            onSuccess: ({ request, rejection }) =>
              Effect.andThen(
                Observe.record(request, rejection.status, route),
                Effect.sync(() => answer(socket, rejection, request.requestId))
              )
          })
        )
      }
      const onClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
        // A connection reset has no one to answer; a socket already written to cannot take an answer.
        // Nor one still answering an earlier request of its own (pipelined): an answer written now
        // would be taken for that request's, so the connection is closed instead, as Node does.
        const answering = (socket as Duplex & { readonly _httpMessage?: unknown })._httpMessage != null
        if (error.code === "ECONNRESET" || !socket.writable || answering) return socket.destroy()
        const rejection = rejectionOf(error, maxHeaderBytes)
        reject(socket, requestLineOf(error), "unparsed", () => rejection)
      }
      const onConnect = (request: IncomingMessage, socket: Duplex) =>
        reject(socket, { method: "CONNECT", target: request.url ?? "" }, undefined, connectRejection)
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
