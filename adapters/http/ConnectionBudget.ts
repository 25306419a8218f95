/**
 * Open connections per client address (`MAX_CONNECTIONS_PER_ADDRESS`, default 256, well below the
 * listener's 2,000): one address cannot hold the listener's connections and leave none for the
 * others. IPv6 addresses count by their /64, which one client usually holds whole. When an
 * address is at its cap, its oldest connection with no request being answered gives up its slot
 * to the new one, those that have never sent a whole request first (a client opening connections
 * and sending half a request line loses them first); if every one of its connections is being
 * answered, the new connection is closed at once. Connections from a trusted proxy
 * (`TRUSTED_PROXIES`) are not counted: behind a proxy, limiting connections per client is the
 * proxy's concern.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { Config, Effect, Layer, Schema } from "effect"
import { addressKey, ClientAddress } from "./pipeline/ClientAddress.ts"

export const maxPerAddress = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 100_000 })),
  "MAX_CONNECTIONS_PER_ADDRESS"
).pipe(Config.withDefault(256))

interface Tracked {
  /** Requests being answered on it now. */
  busy: number
  /** Whether it has ever carried a whole request. */
  used: boolean
}

/** The slots of each address, in the order its connections opened. */
export const make = (cap: number, exempt: (address: string) => boolean) => {
  const slots = new Map<string, Set<Socket>>()
  const state = new WeakMap<Socket, Tracked>()

  const evictable = (sockets: Set<Socket>) => {
    let idle: Socket | undefined
    for (const socket of sockets) {
      const tracked = state.get(socket)!
      if (tracked.busy > 0) continue
      if (!tracked.used) return socket
      idle ??= socket
    }
    return idle
  }

  const onConnection = (socket: Socket) => {
    const address = socket.remoteAddress
    if (address === undefined || exempt(address)) return
    const key = addressKey(address)
    let sockets = slots.get(key)
    if (sockets === undefined) {
      sockets = new Set()
      slots.set(key, sockets)
    }
    if (sockets.size >= cap) {
      const victim = evictable(sockets)
      if (victim === undefined) return void socket.destroy()
      sockets.delete(victim)
      victim.destroy()
    }
    sockets.add(socket)
    state.set(socket, { busy: 0, used: false })
    socket.once("close", () => {
      sockets.delete(socket)
      if (sockets.size === 0 && slots.get(key) === sockets) slots.delete(key)
    })
  }

  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    const tracked = state.get(request.socket)
    if (tracked === undefined) return
    tracked.busy++
    tracked.used = true
    response.once("close", () => {
      tracked.busy--
    })
  }

  return { onConnection, onRequest, addresses: () => slots.size }
}

/** Counts `server`'s connections per client address while the layer lives. */
export const layer = (server: Server) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const cap = yield* Effect.orDie(maxPerAddress)
      const clients = yield* ClientAddress
      const budget = make(cap, clients.isTrustedProxy)
      // Before the request handlers: a request counts from the moment Node has read its headers.
      server.prependListener("connection", budget.onConnection)
      server.prependListener("request", budget.onRequest)
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          server.off("connection", budget.onConnection)
          server.off("request", budget.onRequest)
        })
      )
    })
  )
