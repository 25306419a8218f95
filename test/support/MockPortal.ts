/**
 * A local HTTP server standing in for a portal's API in tests and conformance fixtures: bound to
 * 127.0.0.1 on a free port, closed with its scope. The handler answers each request; requests
 * are counted so tests can see what a connector asked for.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

/** What a handler sees of a request: its method and headers (names in lower case). */
export type MockRequest = Pick<IncomingMessage, "method" | "headers">

export type Handler = (
  request: MockRequest,
  url: URL,
  body: string
) => MockAnswer | undefined | Promise<MockAnswer | undefined>

/**
 * An answer: a status, headers and a JSON body; `undefined` never answers (a hung portal). A
 * promise of one is answered when it settles (a slow portal).
 */
export interface MockAnswer {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  readonly json?: unknown
}

export interface MockPortal {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly requests: ReadonlyArray<URL>
}

export const json = (body: unknown, headers: Readonly<Record<string, string>> = {}): MockAnswer => ({
  status: 200,
  headers,
  json: body
})

export const mockPortal = (handler: Handler) =>
  Effect.acquireRelease(
    Effect.callback<{ server: ReturnType<typeof createServer>; portal: MockPortal }>((resume) => {
      const requests: Array<URL> = []
      const server = createServer((request: IncomingMessage, response: ServerResponse) => {
        let body = ""
        request.on("data", (chunk: Buffer) => {
          body += chunk.toString("utf8")
        })
        request.on("end", () => {
          const url = new URL(request.url ?? "/", "http://127.0.0.1")
          requests.push(url)
          void Promise.resolve(handler(request, url, body)).then((answer) => {
            if (answer === undefined || response.destroyed) return
            response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers })
            response.end(answer.json === undefined ? "" : JSON.stringify(answer.json))
          })
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ server, portal: { origin: `http://127.0.0.1:${port}`, requests } }))
      })
    }),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ portal }) => portal))
