/**
 * The listener's connection slots, counted here rather than by Node: `MAX_CONNECTIONS` (2,000)
 * in all and `MAX_CONNECTIONS_PER_ADDRESS` (256) per client address (IPv6 by its /64, which one
 * client usually holds whole). Node's own `server.maxConnections` closes a connection past its cap
 * before any listener sees it, so nothing could give that connection a slot; here the connection
 * that would pass a cap takes the slot of one with no request being answered instead.
 *
 * - An address at its own cap gives up its oldest connection that never sent a whole request,
 *   else its oldest idle one, as before.
 * - The listener at its cap takes a slot from whichever address: first the oldest connection that
 *   has not sent a whole request within `HEADERS_TIMEOUT_UNDER_PRESSURE_SECONDS` (1 s) of opening,
 *   then the kept-alive connection idle the longest, then (a flood that opens connections faster
 *   than that timeout) the oldest connection still sending its first request of the address
 *   holding the most such connections, so a client with one connection loses it last.
 * - A connection whose request is being answered never gives up its slot: when every connection
 *   that could is busy, the new one is closed at once.
 *
 * Connections from a trusted proxy (`TRUSTED_PROXIES`) count toward the listener's cap but not per
 * address: behind a proxy, limiting connections per client is the proxy's concern.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { Config, Effect, Layer, Schema } from "effect"
import { addressKey, ClientAddress } from "./pipeline/ClientAddress.ts"

export const maxPerAddress = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 100_000 })),
  "MAX_CONNECTIONS_PER_ADDRESS"
).pipe(Config.withDefault(256))

export const headersTimeoutUnderPressureSeconds = Config.schema(
  Schema.FiniteFromString.check(Schema.isBetween({ minimum: 0.05, maximum: 10 })),
  "HEADERS_TIMEOUT_UNDER_PRESSURE_SECONDS"
).pipe(Config.withDefault(1))

export interface SlotLimits {
  /** Connections open at once on the listener. */
  readonly total: number
  /** Connections open at once from one address. */
  readonly perAddress: number
  /** How long after opening a connection without a whole request is the first to go at the cap. */
  readonly staleAfterMillis: number
}

interface Tracked {
  /** Its address's key; undefined for a trusted proxy, counted only in the total. */
  readonly key: string | undefined
  readonly openedAt: number
  /** Requests being answered on it now. */
  busy: number
  /** Whether it has ever carried a whole request. */
  used: boolean
}

const first = <A>(values: Iterable<A>): A | undefined => {
  for (const value of values) return value
  return undefined
}

/**
 * The addresses by how many of their connections are still sending their first request, to find
 * the one with the most in constant time: counts move by one, so the largest moves by at most one.
 */
const makeTally = () => {
  const countOf = new Map<string | undefined, number>()
  const withCount = new Map<number, Set<string | undefined>>()
  let largest = 0
  const move = (key: string | undefined, by: 1 | -1) => {
    const from = countOf.get(key) ?? 0
    const to = from + by
    withCount.get(from)?.delete(key)
    if (to === 0) countOf.delete(key)
    else {
      countOf.set(key, to)
      let keys = withCount.get(to)
      if (keys === undefined) {
        keys = new Set()
        withCount.set(to, keys)
      }
      keys.add(key)
    }
    if (to > largest) largest = to
    while (largest > 0 && (withCount.get(largest)?.size ?? 0) === 0) largest--
  }
  return {
    add: (key: string | undefined) => move(key, 1),
    remove: (key: string | undefined) => move(key, -1),
    /** A key holding the most, if any: of several, the one that reached that count first. */
    largest: () => (largest === 0 ? undefined : first(withCount.get(largest)!))
  }
}

/**
 * The slots' bookkeeping for connections of any kind `C`, by the events the listener sees. Each
 * call that admits a connection says which connections to close: those whose slot it took, or the
 * new one itself when no slot could be had.
 */
export const makeSlots = <C>(limits: SlotLimits, now: () => number) => {
  const state = new Map<C, Tracked>()
  const byAddress = new Map<string, Set<C>>()
  // Connections that never carried a whole request and are not busy, in the order they opened,
  // in all and per address (trusted proxies' under `undefined`).
  const fresh = new Set<C>()
  const freshByAddress = new Map<string | undefined, Set<C>>()
  const freshTally = makeTally()
  // Connections that carried a request and have none now, in the order they became idle.
  const idle = new Set<C>()

  const leaveFresh = (connection: C, tracked: Tracked) => {
    if (!fresh.delete(connection)) return
    const sameAddress = freshByAddress.get(tracked.key)!
    sameAddress.delete(connection)
    if (sameAddress.size === 0) freshByAddress.delete(tracked.key)
    freshTally.remove(tracked.key)
  }

  const forget = (connection: C) => {
    const tracked = state.get(connection)
    if (tracked === undefined) return
    state.delete(connection)
    leaveFresh(connection, tracked)
    idle.delete(connection)
    if (tracked.key === undefined) return
    const sameAddress = byAddress.get(tracked.key)!
    sameAddress.delete(connection)
    if (sameAddress.size === 0) byAddress.delete(tracked.key)
  }

  /** An address's own: its oldest that never carried a whole request, else its oldest idle one. */
  const ownVictim = (connections: Set<C>) => {
    let idleOne: C | undefined
    for (const connection of connections) {
      const tracked = state.get(connection)!
      if (tracked.busy > 0) continue
      if (!tracked.used) return connection
      idleOne ??= connection
    }
    return idleOne
  }

  /** Anyone's, in the order the module's comment gives. */
  const listenerVictim = () => {
    const oldest = first(fresh)
    if (oldest !== undefined && now() - state.get(oldest)!.openedAt >= limits.staleAfterMillis) return oldest
    const longestIdle = first(idle)
    if (longestIdle !== undefined) return longestIdle
    if (oldest === undefined) return undefined
    return first(freshByAddress.get(freshTally.largest())!)
  }

  const opened = (connection: C, key: string | undefined): ReadonlyArray<C> => {
    const sameAddress = key === undefined ? undefined : byAddress.get(key)
    let victim: C | undefined
    if (sameAddress !== undefined && sameAddress.size >= limits.perAddress) {
      victim = ownVictim(sameAddress)
      if (victim === undefined) return [connection]
    } else if (state.size >= limits.total) {
      victim = listenerVictim()
      if (victim === undefined) return [connection]
    }
    if (victim !== undefined) forget(victim)
    const tracked: Tracked = { key, openedAt: now(), busy: 0, used: false }
    state.set(connection, tracked)
    fresh.add(connection)
    let freshHere = freshByAddress.get(key)
    if (freshHere === undefined) {
      freshHere = new Set()
      freshByAddress.set(key, freshHere)
    }
    freshHere.add(connection)
    freshTally.add(key)
    if (key !== undefined) {
      let connections = byAddress.get(key)
      if (connections === undefined) {
        connections = new Set()
        byAddress.set(key, connections)
      }
      connections.add(connection)
    }
    return victim === undefined ? [] : [victim]
  }

  const requestStarted = (connection: C) => {
    const tracked = state.get(connection)
    if (tracked === undefined) return
    tracked.busy++
    tracked.used = true
    leaveFresh(connection, tracked)
    idle.delete(connection)
  }

  const requestEnded = (connection: C) => {
    const tracked = state.get(connection)
    if (tracked === undefined || tracked.busy === 0) return
    tracked.busy--
    if (tracked.busy === 0) idle.add(connection)
  }

  return {
    opened,
    requestStarted,
    requestEnded,
    closed: forget,
    open: () => state.size
  }
}

/** `server`'s connections in slots while the layer lives, `total` of them at once. */
export const layer = (server: Server, total: number) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const perAddress = yield* Effect.orDie(maxPerAddress)
      const staleAfterSeconds = yield* Effect.orDie(headersTimeoutUnderPressureSeconds)
      const clients = yield* ClientAddress
      const slots = makeSlots<Socket>({ total, perAddress, staleAfterMillis: staleAfterSeconds * 1000 }, Date.now)
      const onConnection = (socket: Socket) => {
        const address = socket.remoteAddress
        // A socket already closed by its peer has no address; Node closes it on its own.
        if (address === undefined) return
        const toClose = slots.opened(socket, clients.isTrustedProxy(address) ? undefined : addressKey(address))
        for (const closing of toClose) closing.destroy()
        if (!socket.destroyed) socket.once("close", () => slots.closed(socket))
      }
      const onRequest = (request: IncomingMessage, response: ServerResponse) => {
        slots.requestStarted(request.socket)
        response.once("close", () => slots.requestEnded(request.socket))
      }
      // Before the request handlers: a request counts from the moment Node has read its headers,
      // one sent with `Expect: 100-continue` too (Node emits it as `checkContinue` instead).
      server.prependListener("connection", onConnection)
      server.prependListener("request", onRequest)
      server.prependListener("checkContinue", onRequest)
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          server.off("connection", onConnection)
          server.off("request", onRequest)
          server.off("checkContinue", onRequest)
        })
      )
    })
  )
