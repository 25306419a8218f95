/**
 * Connections per client address: one address holding its cap of connections with half a request
 * line each cannot keep another address out, and its own idle connections give up their slots
 * to its new ones, those that never sent a whole request first.
 */
import { connect, type Socket } from "node:net"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { addressKey } from "../../adapters/http/pipeline/ClientAddress.ts"
import { rawGet } from "../support/RawHttp.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

/** A connection from `localAddress` that sends half a request line and waits. */
const halfRequest = (base: string, localAddress: string) =>
  new Promise<{ socket: Socket; closed: Promise<void> }>((resolve, reject) => {
    const url = new URL(base)
    const socket = connect({ host: url.hostname, port: Number(url.port), localAddress }, () => {
      socket.write("GET /v1/ven")
      resolve({ socket, closed })
    })
    const closed = new Promise<void>((done) => socket.once("close", () => done()))
    socket.once("error", reject)
  })

const cap = 4

layer(
  serverLayer({ settings: { MAX_CONNECTIONS_PER_ADDRESS: String(cap) } }).pipe(Layer.provideMerge(TestDatabase.layer)),
  { timeout: 60_000, excludeTestServices: true }
)("connections per client address", (it) => {
  it.effect("one address at its cap keeps no other address out; its half-sent connections give up their slots", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const held = yield* Effect.promise(() =>
        Promise.all(Array.from({ length: cap }, () => halfRequest(base, "127.0.0.2")))
      )
      // Another address is served while the first holds its cap.
      const other = yield* Effect.promise(() => rawGet(base, "/health", {}, "GET", "127.0.0.3"))
      assert.strictEqual(other.status, 200)
      // The first address's next connection takes the slot of its oldest half-sent one.
      const next = yield* Effect.promise(() => halfRequest(base, "127.0.0.2"))
      yield* Effect.promise(() => held[0]!.closed)
      const stillOpen = held.slice(1).filter(({ socket }) => !socket.destroyed && socket.readyState === "open")
      assert.strictEqual(stillOpen.length, cap - 1)
      // And a whole request from it is answered, taking the slot of another half-sent one.
      const answered = yield* Effect.promise(() => rawGet(base, "/health", {}, "GET", "127.0.0.2"))
      assert.strictEqual(answered.status, 200)
      for (const { socket } of [...held, next]) socket.destroy()
    })
  )
})

describe("addressKey", () => {
  it("counts IPv4 by the address, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64", () => {
    assert.strictEqual(addressKey("10.0.0.1"), "10.0.0.1")
    assert.strictEqual(addressKey("::ffff:10.0.0.1"), "10.0.0.1")
    assert.strictEqual(addressKey("2001:db8:1:2:3:4:5:6"), addressKey("2001:db8:1:2::9"))
    assert.notStrictEqual(addressKey("2001:db8:1:2::1"), addressKey("2001:db8:1:3::1"))
    assert.strictEqual(addressKey("::1"), "0:0:0:0::/64")
  })

  it("puts every address of one /64 together, whatever its spelling", () =>
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }), (groups) => {
        const full = groups.map((g) => g.toString(16)).join(":")
        const padded = groups.map((g) => g.toString(16).padStart(4, "0")).join(":")
        const sameNetwork = [...groups.slice(0, 4), 0, 0, 0, 1].map((g) => g.toString(16)).join(":")
        assert.strictEqual(addressKey(full), addressKey(padded))
        assert.strictEqual(addressKey(full), addressKey(sameNetwork))
      })
    ))
})
