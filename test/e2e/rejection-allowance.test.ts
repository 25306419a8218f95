/**
 * Node's own rejections (a request it cannot parse) never reach the pipeline, yet they spend the
 * same allowance as every other keyless answer: an IPv6 client counts by its /64 whether its
 * request was refused by Node or answered by the pipeline, so a flood of malformed requests
 * leaves it no more room than a flood of keyless ones.
 */
import { connect } from "node:net"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BaseUrl, layerWith } from "../support/TestServer.ts"

const addressLimit = { perSecond: 0.001, burst: 3 }

/** Writes `bytes` to the server on `::1` and resolves with what it answered once it closes. */
const exchange = (port: number, bytes: string) =>
  Effect.promise(
    () =>
      new Promise<string>((resolve) => {
        const socket = connect(port, "::1", () => socket.write(bytes))
        let received = ""
        socket.on("data", (chunk) => {
          received += chunk.toString("latin1")
        })
        socket.on("close", () => resolve(received))
        socket.on("error", () => resolve(received))
      })
  )

layer(layerWith({ host: "::1", addressLimit }), { timeout: 60_000, excludeTestServices: true })(
  "Node's rejections and the address allowance",
  (it) => {
    it.effect("a malformed request spends its IPv6 client's /64 allowance, as a keyless request does", () =>
      Effect.gen(function* () {
        const base = yield* BaseUrl
        const port = Number(new URL(base).port)
        for (let i = 0; i < addressLimit.burst; i++) {
          const answer = yield* exchange(port, "FOO / HTTP/1.1\r\nHost: x\r\n\r\n")
          assert.match(answer, /^HTTP\/1.1 400 /)
        }
        const keyless = yield* Effect.promise(() => fetch(`${base}/v1/vendors`))
        assert.strictEqual(keyless.status, 429)
        assert.match(keyless.headers.get("retry-after") ?? "", /^\d+$/)
      })
    )
  }
)
