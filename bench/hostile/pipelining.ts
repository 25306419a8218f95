/**
 * Clients that pipeline requests for the 3 MB reference page and never read the answers: how
 * much memory the server holds for them. Run against a running server, naming its process:
 *
 *   node bench/hostile/pipelining.ts http://127.0.0.1:3000 <server pid> [clients=150] [requests=4]
 *
 * Prints the server's resident memory before, while the clients hold their connections, and its
 * peak, from /proc (Linux). Traffic goes to the given URL only: point it at loopback. With
 * BENCH_SMOKE=1 it holds the connections for a fraction of a second (`smoke.ts` runs it so).
 */
import { readFileSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { sized } from "../support/Smoke.ts"

const [base = "http://127.0.0.1:3000", pidText = "", clientsText = "150", requestsText = "4"] = process.argv.slice(2)
const pid = Number(pidText)
if (!Number.isInteger(pid) || pid <= 0) {
  process.stderr.write("usage: node bench/hostile/pipelining.ts <base url> <server pid> [clients] [requests]\n")
  process.exit(2)
}
const url = new URL(base)

const memory = () => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0)
  return { rssMiB: Math.round(kib("VmRSS") / 1024), peakMiB: Math.round(kib("VmHWM") / 1024) }
}

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

const before = memory()
const sockets: Array<Socket> = []
const request = `GET /docs HTTP/1.1\r\nHost: ${url.host}\r\nAccept-Encoding: identity\r\n\r\n`
for (let i = 0; i < Number(clientsText); i++) {
  const socket = connect(Number(url.port), url.hostname)
  socket.on("error", () => undefined)
  // Never read: the answers stay in the server's buffers (and the kernel's).
  socket.pause()
  socket.write(request.repeat(Number(requestsText)))
  sockets.push(socket)
}
await sleep(sized(8_000, 300))
const holding = memory()
for (const socket of sockets) socket.destroy()
await sleep(sized(2_000, 100))
const after = memory()
process.stdout.write(
  `${JSON.stringify({ clients: Number(clientsText), requestsEach: Number(requestsText), before, holding, after })}\n`
)
