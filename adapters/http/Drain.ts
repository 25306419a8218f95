/**
 * The listener's graceful drain on a stop: requests in flight are answered (and audited) before
 * anything else is torn down, no connection the kernel accepted is reset, and answers given
 * meanwhile close their connections.
 */
import type { Server } from "node:http"
import { Server as NetServer } from "node:net"
import { Effect, Layer } from "effect"

/**
 * Stops accepting connections and resolves once every request in flight has been answered (and
 * audited), or after the drain timeout. Only then is the program interrupted, so a stop resets
 * no connection that was being served.
 */
export const drain = (http: Server) =>
  new Promise<void>((resolve) => {
    if (!http.listening) return resolve()
    // Every answer from now on says `Connection: close` and ends its connection: a client that
    // keeps connections alive opens a new one (to another process) for its next request, rather
    // than sending it on a connection the drain then closes under it.
    http.prependListener("request", (_request, response) => {
      response.shouldKeepAlive = false
    })
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

// Runs the drain when the layer is released. It is built after the routes are served, so it is
// released before them: requests in flight are answered before effect's server closes, which
// would also drop connections accepted a moment ago whose request is not read yet.
export const drainOnStop = (http: Server) =>
  Layer.effectDiscard(Effect.addFinalizer(() => Effect.promise(() => drain(http))))
