/**
 * One key asks for the heaviest pages the API allows, from many clients at once (item 2 of the
 * "fair under abuse" issue): 500 receivables a page, each with about 60 KB of metadata (inside the
 * documented 64 KiB), from BENCH_CLIENTS parallel clients (default 32). A second tenant's
 * requests are timed before (quiet) and during, and the server's memory is sampled.
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

const attackerAgent = new http.Agent({ keepAlive: true, maxSockets: clients, localAddress: "127.0.0.2" })

const heavyRequest = (port: number) =>
  new Promise<void>((done) => {
    const sent = http.get(
      {
        host: "127.0.0.1",
        port,
        path: heavyPath,
        agent: attackerAgent,
        headers: { authorization: `Bearer ${attackerKey}` }
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
    for (const server of servers) {
      const quiet = yield* Effect.promise(() => measureVictim(server.port, { seconds, maxRequests: 5_000 }))
      rows.push(tableRow(server.name, "quiet", quiet, quiet, rssMiB(server.pid)))
      const [figures, rss] = yield* Effect.promise(async () => {
        let end = () => {}
        const stop = new Promise<void>((done) => {
          end = done
        })
        const attack = flood(server.port, stop)
        const result = await peakRss(server.pid, measureVictim(server.port, { seconds, maxRequests: 5_000 }))
        end()
        await attack
        return result
      })
      rows.push(tableRow(server.name, `${clients} clients of one key, 500 x 60 KB pages`, figures, quiet, rss))
      rows.push(`| ${server.name} | after | | | | | | ${rssMiB(server.pid).toFixed(0)} |`)
    }
    process.stdout.write(`${rows.join("\n")}\n`)
  })
)

Effect.runPromise(Effect.scoped(main)).catch((error) => {
  process.stderr.write(`${error}\n`)
  process.exit(1)
})
