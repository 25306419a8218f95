/**
 * A webhook receiver on 127.0.0.1 for tests: records every request it is sent (headers and the
 * body's exact text) and answers as the test tells it, per request, so that tests can make it
 * fail, answer slowly, or go away.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export type Answer = (request: Received, response: ServerResponse) => void

export const ok: Answer = (_, response) => response.writeHead(204).end()

export interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  /** Requests being answered now. */
  readonly open: () => number
  /** The most answered at once so far. */
  readonly mostOpen: () => number
  answer: Answer
}

/** A receiver for the scope's life. */
export const receiver = (answer: Answer = ok) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly receiver: Receiver; readonly close: () => Promise<void> }>((resume) => {
      let open = 0
      let mostOpen = 0
      const state: Receiver = {
        url: "",
        received: [],
        open: () => open,
        mostOpen: () => mostOpen,
        answer
      }
      const server = createServer((request, response) => {
        open += 1
        mostOpen = Math.max(mostOpen, open)
        response.on("close", () => {
          open -= 1
        })
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const received = {
            path: request.url ?? "/",
            headers: request.headers,
            body: Buffer.concat(chunks).toString("utf8")
          }
          state.received.push(received)
          state.answer(received, response)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        Object.assign(state, { url: `http://127.0.0.1:${port}/hooks` })
        resume(
          Effect.succeed({
            receiver: state,
            close: () =>
              new Promise<void>((done) => {
                server.closeAllConnections()
                server.close(() => done())
              })
          })
        )
      })
    }),
    ({ close }) => Effect.promise(close)
  ).pipe(Effect.map(({ receiver }) => receiver))

/** The headers a verifier reads, as one record of strings. */
export const webhookHeaders = (headers: IncomingHttpHeaders): Record<string, string> => ({
  "webhook-id": String(headers["webhook-id"]),
  "webhook-timestamp": String(headers["webhook-timestamp"]),
  "webhook-signature": String(headers["webhook-signature"])
})
