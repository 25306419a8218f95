/**
 * One address holds as many connections as it can, each with half a request line, reopening any
 * the server closes (the attack of issue "fair under abuse", item 1); a second address's requests
 * are timed before (quiet) and during. `npm run bench:abuse:connections`; BENCH_SECONDS per phase
 * (default 10), BENCH_CONNECTIONS the attacker's connections (default 2,100, above the listener's
 * 2,000), BENCH_BEFORE=<another checkout> to measure its server too, BENCH_SMOKE=1 for seconds.
 */
import { connect, type Socket } from "node:net"
import { Effect } from "effect"
import { withFreshDatabase } from "../support/FreshDatabase.ts"
import { option } from "../support/Smoke.ts"
import { measureVictim, peakRss, seedTenants, startServers, tableHeader, tableRow } from "./Tenants.ts"

const seconds = option("BENCH_SECONDS", 10, 1)
const connections = option("BENCH_CONNECTIONS", 2_100, 20)
const attacker = "127.0.0.2"
// The attack's own bound: however the server answers, it opens at most this many connections.
const maxOpens = connections * 20

/** Holds `connections` half-sent requests open against `port` until `stop` resolves. */
const holdConnections = (port: number, stop: Promise<void>) => {
  const open = new Set<Socket>()
  let opens = 0
  let stopped = false
  const openOne = () => {
    if (stopped || opens >= maxOpens) return
    opens++
    const socket = connect({ host: "127.0.0.1", port, localAddress: attacker }, () => socket.write("GET /v1/ven"))
    open.add(socket)
    socket.on("error", () => undefined)
    socket.on("close", () => {
      open.delete(socket)
      // Reopened a moment later, as the attack did when the header deadline closed its connections.
      setTimeout(openOne, 10)
    })
  }
  for (let i = 0; i < connections; i++) openOne()
  return stop.then(() => {
    stopped = true
    for (const socket of open) socket.destroy()
    return opens
  })
}

const main = withFreshDatabase("abuse-connections", (url) =>
  Effect.gen(function* () {
    yield* seedTenants(2_000)
    const servers = yield* startServers(url)
    const rows = [...tableHeader]
    for (const server of servers) {
      const quiet = yield* Effect.promise(() =>
        measureVictim(server.port, { seconds, maxRequests: 5_000, freshConnections: true })
      )
      rows.push(tableRow(server.name, "quiet", quiet, quiet, Number.NaN))
      const [figures, rss] = yield* Effect.promise(async () => {
        let end = () => {}
        const stop = new Promise<void>((done) => {
          end = done
        })
        const attack = holdConnections(server.port, stop)
        // Let the attacker fill what it can before the victim is timed.
        await new Promise((done) => setTimeout(done, Math.min(2_000, seconds * 500)))
        const measured = peakRss(
          server.pid,
          measureVictim(server.port, { seconds, maxRequests: 5_000, freshConnections: true })
        )
        const result = await measured
        end()
        await attack
        return result
      })
      rows.push(tableRow(server.name, `${connections} connections held from one address`, figures, quiet, rss))
    }
    process.stdout.write(`${rows.join("\n")}\n`)
  })
)

Effect.runPromise(Effect.scoped(main)).catch((error) => {
  process.stderr.write(`${error}\n`)
  process.exit(1)
})
