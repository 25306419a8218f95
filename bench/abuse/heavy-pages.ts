/**
 * One key asks for the heaviest pages the API allows, from many clients at once (item 2 of the
 * "fair under abuse" issue): 500 receivables a page, each with about 60 KB of metadata (inside the
 * documented 64 KiB), from BENCH_CLIENTS parallel clients (default 32), accepting brotli as
 * clients do (BENCH_CODING, default `br`; `identity` for none). A second tenant's requests and
 * `/health` (on a new connection each time, as a probe connects) are timed before (quiet) and
 * during, and the server's memory is sampled.
 * `npm run bench:abuse:pages`; BENCH_SECONDS per phase (default 10), BENCH_BEFORE=<another
 * checkout> to measure its server too, BENCH_SMOKE=1 for seconds.
 */
import http from "node:http"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { withFreshDatabase } from "../support/FreshDatabase.ts"
import { option, sized } from "../support/Smoke.ts"
import {
  attackerKey,
  measureVictim,
  peakRss,
  rssMiB,
  seedTenants,
  startServers,
  tableHeader,
  tableRow
} from "./Tenants.ts"

const seconds = option("BENCH_SECONDS", 10, 1)
const clients = option("BENCH_CLIENTS", 32, 2)
const metadataBytes = sized(60_000, 2_000)
const heavyPath = "/v1/receivables?limit=500&expand[]=metadata&verified_since=all"
const coding = process.env.BENCH_CODING || "br"

const attackerAgent = new http.Agent({ keepAlive: true, maxSockets: clients, localAddress: "127.0.0.2" })

const heavyRequest = (port: number) =>
  new Promise<void>((done) => {
    const sent = http.get(
      {
        host: "127.0.0.1",
        port,
        path: heavyPath,
        agent: attackerAgent,
        headers: { authorization: `Bearer ${attackerKey}`, "accept-encoding": coding }
      },
      (response) => {
        response.resume()
        response.on("end", done)
        response.on("error", () => done())
      }
    )
    sent.setTimeout(60_000, () => sent.destroy())
    sent.on("error", () => done())
  })

/** `clients` loops of heavy requests until `stop` resolves; how many were sent. */
const flood = async (port: number, stop: Promise<void>) => {
  let stopped = false
  let sent = 0
  void stop.then(() => {
    stopped = true
  })
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!stopped && sent < 100_000) {
        sent++
        await heavyRequest(port)
      }
    })
  )
  return sent
}

const main = withFreshDatabase("abuse-pages", (url) =>
  Effect.gen(function* () {
    const [, attacker] = yield* seedTenants(sized(2_000, 200))
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE receivables SET metadata = jsonb_build_object('note', repeat('x', ${metadataBytes}))
      WHERE org_id = ${attacker}`
    const servers = yield* startServers(url)
    const rows = [...tableHeader]
    const healthRows = ["| server | phase | /health requests | p50 ms | p99 ms |", "|---|---|---|---|---|"]
    /** The other tenant's requests, and `/health` beside them. */
    const measure = (port: number) =>
      Promise.all([
        measureVictim(port, { seconds, maxRequests: 5_000 }),
        measureVictim(port, { seconds, maxRequests: 5_000, path: "/health", freshConnections: true })
      ])
    const healthRow = (server: string, phase: string, health: { p50: number; p99: number; requests: number }) =>
      `| ${server} | ${phase} | ${health.requests} | ${health.p50.toFixed(1)} | ${health.p99.toFixed(1)} |`
    for (const server of servers) {
      const [quiet, quietHealth] = yield* Effect.promise(() => measure(server.port))
      rows.push(tableRow(server.name, "quiet", quiet, quiet, rssMiB(server.pid)))
      healthRows.push(healthRow(server.name, "quiet", quietHealth))
      const [[figures, health], rss] = yield* Effect.promise(async () => {
        let end = () => {}
        const stop = new Promise<void>((done) => {
          end = done
        })
        const attack = flood(server.port, stop)
        const result = await peakRss(server.pid, measure(server.port))
        end()
        await attack
        return result
      })
      const phase = `${clients} clients of one key, 500 x 60 KB pages (${coding})`
      rows.push(tableRow(server.name, phase, figures, quiet, rss))
      healthRows.push(healthRow(server.name, phase, health))
      rows.push(`| ${server.name} | after | | | | | | ${rssMiB(server.pid).toFixed(0)} |`)
    }
    process.stdout.write(`${rows.join("\n")}\n\n${healthRows.join("\n")}\n`)
  })
)

Effect.runPromise(Effect.scoped(main)).catch((error) => {
  process.stderr.write(`${error}\n`)
  process.exit(1)
})
