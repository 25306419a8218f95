/**
 * Receivers for the webhooks benchmark, on 127.0.0.1: a fast one that answers 204 at once and
 * notes when each event first arrived, one that always answers 500, one that never answers, and
 * one that answers 204 after `delayMs`.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface Receiver {
  readonly url: string
  /** When each event (by its `sequence`) first arrived, from `performance.now()`. */
  readonly firstArrival: Map<number, number>
  received: number
  readonly close: () => Promise<void>
}

export const listen = (behaviour: "fast" | "failing" | "silent" | "slow", delayMs = 0): Promise<Receiver> =>
  new Promise((resolve) => {
    const firstArrival = new Map<number, number>()
    const server: Server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const { sequence } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { sequence: number }
        if (!firstArrival.has(sequence)) firstArrival.set(sequence, performance.now())
        state.received += 1
        if (behaviour === "fast") response.writeHead(204).end()
        else if (behaviour === "failing") response.writeHead(500).end()
        else if (behaviour === "slow") setTimeout(() => response.writeHead(204).end(), delayMs)
      })
    })
    const state: Receiver = {
      url: "",
      firstArrival,
      received: 0,
      close: () =>
        new Promise((done) => {
          server.closeAllConnections()
          server.close(() => done())
        })
    }
    server.listen(0, "127.0.0.1", () => {
      Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` })
      resolve(state)
    })
  })
