/**
 * HTTP requests sent exactly as written: `fetch` resolves dot segments, folds `\` into `/` and
 * re-encodes paths before they leave, so a probe of how the server reads crafted paths needs a
 * client that sends the request target verbatim. Also a request abandoned when the test says, as
 * a client that hangs up would, and bytes written on a socket as they are.
 */
import { request } from "node:http"
import { connect } from "node:net"

export interface RawAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly body: string
  /** The body's bytes as sent, still in their content encoding. */
  readonly bytes: Buffer
}

export const rawGet = (
  base: string,
  target: string,
  headers: Record<string, string> = {},
  method = "GET",
  /** The loopback address to send from (any of 127.0.0.0/8), as another client would. */
  localAddress?: string
): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const url = new URL(base)
    const options = { host: url.hostname, port: url.port, path: target, method, headers, localAddress }
    const sent = request(options, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          bytes: Buffer.concat(chunks)
        })
      )
    })
    sent.on("error", reject)
    sent.end()
  })

/**
 * Sends the request and hangs up, before any answer, once `hangUp` settles (the test says when);
 * resolves once the socket is closed.
 */
export const abandon = (
  base: string,
  target: string,
  headers: Record<string, string>,
  hangUp: Promise<unknown>,
  localAddress?: string
) =>
  new Promise<void>((resolve) => {
    const url = new URL(base)
    const sent = request({ host: url.hostname, port: url.port, path: target, headers, localAddress })
    sent.on("error", () => resolve())
    sent.on("close", () => resolve())
    sent.end()
    void hangUp.finally(() => sent.destroy())
  })

/** Writes `bytes` on a fresh connection and reads, as Latin-1, until the server closes it. */
export const exchange = (base: string, bytes: string | Uint8Array): Promise<string> =>
  new Promise((resolve) => {
    const url = new URL(base)
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes))
    let received = ""
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1")
    })
    socket.on("close", () => resolve(received))
    socket.on("error", () => resolve(received))
  })
