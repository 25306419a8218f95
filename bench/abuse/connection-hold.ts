/**
 * Addresses hold as many connections as they can, each with half a request line, reopening any
 * the server closes (issue "fair under abuse", item 1, and "every shared queue fair per tenant",
 * item 3); a well-behaved address's requests, each on a fresh connection, are timed before
 * (quiet) and during each attack:
 * - one address holding BENCH_CONNECTIONS (default 2,100, above the listener's 2,000);
 * - 8 addresses holding 255 each and 16 holding 200 each: every one under its cap of 256, all
 *   together past the listener's 2,000.
 * `npm run bench:abuse:connections`; BENCH_SECONDS per phase (default 10), BENCH_BEFORE=<another
 * checkout> to measure its server too, BENCH_SMOKE=1 for seconds (at a cap of 40 connections, so
 * that its attacks still pass it). The attackers' sockets and the server's are file descriptors:
 * the run stops at once if the open-files limit (`ulimit -n`) cannot hold them.
 */
import { readFileSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { Effect } from "effect"
import { withFreshDatabase } from "../support/FreshDatabase.ts"
import { option, sized, smoke } from "../support/Smoke.ts"
import { measureVictim, peakRss, seedTenants, startServers, tableHeader, tableRow } from "./Tenants.ts"

const seconds = option("BENCH_SECONDS", 10, 1)
const connections = option("BENCH_CONNECTIONS", 2_100, 60)

interface Attack {
  readonly name: string
  readonly addresses: ReadonlyArray<string>
  readonly perAddress: number
}

const addresses = (count: number, third: number) => Array.from({ length: count }, (_, i) => `127.0.${third}.${i + 1}`)

const attacks: ReadonlyArray<Attack> = [
  {
    name: `${connections.toLocaleString("en")} connections held from one address`,
    addresses: ["127.0.0.2"],
    perAddress: connections
  },
  ...sized(
    [
      { count: 8, each: 255 },
      { count: 16, each: 200 }
    ],
    [
      { count: 4, each: 15 },
      { count: 8, each: 8 }
    ]
  ).map(({ count, each }, i) => ({
    name: `${count} addresses holding ${each} each`,
    addresses: addresses(count, 3 + i),
    perAddress: each
  }))
]

/** The soft limit of open files this process (and the server it starts) may hold. */
const openFilesLimit = () => {
  const line = readFileSync("/proc/self/limits", "utf8")
    .split("\n")
    .find((l) => l.startsWith("Max open files"))
  return Number(line?.split(/\s+/)[3] ?? Number.POSITIVE_INFINITY)
}

/**
 * Holds `attack`'s half-sent requests open against `port` until `stop` resolves, each reopened
 * 10 ms after the server closes it (as the attack did when the header deadline closed its
 * connections), at most 20 times each over. `held` resolves once every first one has connected.
 */
const holdConnections = (port: number, attack: Attack, stop: Promise<void>) => {
  const open = new Set<Socket>()
  const maxOpens = attack.addresses.length * attack.perAddress * 20
  let opens = 0
  let stopped = false
  const openOne = (localAddress: string) =>
    new Promise<void>((connected) => {
      if (stopped || opens >= maxOpens) return connected()
      opens++
      const socket = connect({ host: "127.0.0.1", port, localAddress }, () => {
        socket.write("GET /v1/ven")
        connected()
      })
      open.add(socket)
      socket.on("error", () => connected())
      socket.on("close", () => {
        open.delete(socket)
        setTimeout(() => openOne(localAddress), 10)
      })
    })
  const held = Promise.all(
    attack.addresses.flatMap((address) => Array.from({ length: attack.perAddress }, () => openOne(address)))
  )
  const done = stop.then(() => {
    stopped = true
    for (const socket of open) socket.destroy()
    return opens
  })
  return { held, done }
}

const main = withFreshDatabase("abuse-connections", (url) =>
  Effect.gen(function* () {
    const mostHeld = Math.max(...attacks.map((a) => a.addresses.length * a.perAddress))
    // The attackers' sockets here and the server's (up to its cap) in its own process, plus room.
    if (openFilesLimit() < mostHeld + 1_000)
      return yield* Effect.die(new Error(`ulimit -n is ${openFilesLimit()}: raise it to ${mostHeld + 1_000} or more`))
    yield* seedTenants(2_000)
    // In smoke mode a cap the small attacks pass, so that they take the same paths.
    const servers = yield* startServers(url, smoke ? { MAX_CONNECTIONS: "40" } : {})
    const rows = [...tableHeader]
    for (const server of servers) {
      const quiet = yield* Effect.promise(() =>
        measureVictim(server.port, { seconds, maxRequests: 5_000, freshConnections: true })
      )
      rows.push(tableRow(server.name, "quiet", quiet, quiet, Number.NaN))
      for (const attack of attacks) {
        const [figures, rss] = yield* Effect.promise(async () => {
          let end = () => {}
          const stop = new Promise<void>((done) => {
            end = done
          })
          const holding = holdConnections(server.port, attack, stop)
          // Every attacker's first connection in, and a moment for the reopened ones to settle.
          await holding.held
          await new Promise((done) => setTimeout(done, Math.min(1_000, seconds * 200)))
          const result = await peakRss(
            server.pid,
            measureVictim(server.port, { seconds, maxRequests: 5_000, freshConnections: true })
          )
          end()
          await holding.done
          return result
        })
        rows.push(tableRow(server.name, attack.name, figures, quiet, rss))
      }
    }
    process.stdout.write(`${rows.join("\n")}\n`)
  })
)

Effect.runPromise(Effect.scoped(main)).catch((error) => {
  process.stderr.write(`${error}\n`)
  process.exit(1)
})
