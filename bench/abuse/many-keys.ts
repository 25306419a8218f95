/**
 * One tenant floods with many keys (`node bench/abuse/many-keys.ts`): what a second,
 * well-behaved tenant sees meanwhile, against a quiet baseline in the same run. A fresh embedded
 * PostgreSQL holds two organizations with the same receivables; the app runs in its `serve` role
 * on loopback with the service's default limits. The well-behaved tenant reads one page of
 * receivables ten times a second with one key (under its key's limit), timed one at a time on a
 * kept-alive connection; the flooding tenant sends the same request as fast as it can with 30
 * keys, each on its own connections. Three phases of `BENCH_SECONDS` each: quiet; flood under
 * the organization's limit (defaults); flood with the organization's limit out of reach, as
 * before it existed (the app restarted on the same database). Bounded: each phase stops at its
 * time or at `BENCH_MAX_FLOOD` flood requests. The load generator runs in this process, on the
 * same cores as the server and PostgreSQL, as in the other benchmarks. The server's CPU per flood
 * answer (nearly all refusals under the organization's limit) says what a refusal costs, less
 * swayed by the machine's load than the latencies.
 *
 * Options (environment): BENCH_SECONDS (default 20), BENCH_CONNECTIONS_PER_KEY (default 2),
 * BENCH_MAX_FLOOD (default 1,000,000); BENCH_SMOKE=1 for a run of seconds.
 */
import http from "node:http"
import { Effect, Exit, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { freePort } from "../../test/support/ports.ts"
import { processCpuSeconds } from "../ProcessCpu.ts"
import { withFreshDatabase } from "../support/FreshDatabase.ts"
import { quantile, seedOrganization, startServer, timedRequest } from "../support/OneOrganization.ts"
import { option, sized } from "../support/Smoke.ts"
import { serviceDefaults } from "./Tenants.ts"

const seconds = option("BENCH_SECONDS", 20, 1.5)
const connectionsPerKey = option("BENCH_CONNECTIONS_PER_KEY", 2, 1)
const maxFlood = option("BENCH_MAX_FLOOD", 1_000_000, 5_000)
const receivables = sized(20_000, 500)
const floodKeyCount = 30
const politeEveryMs = 100
const path = "/v1/receivables?verified_since=all&limit=20"
const politeKey = makeApiKey("pr", new Uint8Array(secretBytes).fill(7))
const floodKeys = Array.from({ length: floodKeyCount }, (_, i) =>
  makeApiKey("pr", new Uint8Array(secretBytes).fill(100 + i))
)
const log = (line: string) => process.stderr.write(`${line}\n`)

const withoutOrgLimit = { ...serviceDefaults, ORG_RATE_LIMIT_PER_SECOND: "1000000", ORG_RATE_LIMIT_BURST: "1000000" }

interface Phase {
  readonly name: string
  readonly politeMs: Array<number>
  readonly politeStatuses: Record<number, number>
  readonly floodStatuses: Record<number, number>
  readonly seconds: number
  /** The server's CPU seconds over the phase, all its threads. */
  readonly cpuSeconds: number
}

const count = (statuses: Record<number, number>, status: number) => {
  statuses[status] = (statuses[status] ?? 0) + 1
}

/** The well-behaved tenant: one request every `politeEveryMs`, until the deadline. */
const polite = async (port: number, until: number, phase: Phase) => {
  for (let next = performance.now(); next < until; next += politeEveryMs) {
    const wait = next - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const answer = await timedRequest(port, path, { headers: { authorization: `Bearer ${politeKey}` } })
    phase.politeMs.push(answer.ms)
    count(phase.politeStatuses, answer.status)
  }
}

/** The flooding tenant: every key on its own connections, back to back, until the deadline or the bound. */
const flood = async (port: number, until: number, phase: Phase) => {
  let sent = 0
  const agents = floodKeys.map(() => new http.Agent({ keepAlive: true, maxSockets: connectionsPerKey }))
  const one = (key: string, agent: http.Agent) =>
    new Promise<number>((resolve, reject) => {
      const request = http.request(
        { host: "127.0.0.1", port, path, agent, headers: { authorization: `Bearer ${key}` } },
        (response) => {
          response.resume()
          response.on("end", () => resolve(response.statusCode ?? 0))
        }
      )
      request.on("error", reject)
      request.end()
    })
  const loop = async (key: string, agent: http.Agent) => {
    while (performance.now() < until && sent < maxFlood) {
      sent += 1
      count(phase.floodStatuses, await one(key, agent))
    }
  }
  await Promise.all(
    floodKeys.flatMap((key, i) => Array.from({ length: connectionsPerKey }, () => loop(key, agents[i]!)))
  )
  for (const agent of agents) agent.destroy()
}

const measure = async (server: Server, name: string, flooding: boolean): Promise<Phase> => {
  const phase: Phase = { name, politeMs: [], politeStatuses: {}, floodStatuses: {}, seconds, cpuSeconds: 0 }
  const cpuBefore = processCpuSeconds(server.pid)
  const started = performance.now()
  const until = started + seconds * 1000
  await Promise.all([
    polite(server.port, until, phase),
    flooding ? flood(server.port, until, phase) : Promise.resolve()
  ])
  return {
    ...phase,
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: processCpuSeconds(server.pid) - cpuBefore
  }
}

const line = (phase: Phase) => {
  const answered = Object.values(phase.floodStatuses).reduce((a, b) => a + b, 0)
  const perSecond = (status: number) => Math.round((phase.floodStatuses[status] ?? 0) / phase.seconds)
  return [
    phase.name.padEnd(34),
    `${quantile(phase.politeMs, 0.5).toFixed(1)}`.padStart(8),
    `${quantile(phase.politeMs, 0.99).toFixed(1)}`.padStart(8),
    JSON.stringify(phase.politeStatuses).padEnd(14),
    `${Math.round(answered / phase.seconds)}`.padStart(8),
    `${perSecond(200)}`.padStart(8),
    `${perSecond(429)}`.padStart(8),
    `${(phase.cpuSeconds / phase.seconds).toFixed(2)}`.padStart(10),
    (answered === 0 ? "-" : `${Math.round((phase.cpuSeconds * 1e6) / answered)}`).padStart(14)
  ].join("  ")
}

interface Server {
  readonly port: number
  readonly pid: number
}

/** The app with `env` for the length of `use`, on a port of its own, stopped afterwards. */
const withServer = <A>(url: string, env: Record<string, string>, use: (server: Server) => Promise<A>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const port = yield* Effect.promise(freePort)
      const child = yield* Effect.acquireRelease(
        Effect.promise(() => startServer(url, port, env)),
        (child) => Effect.sync(() => child.kill("SIGTERM"))
      )
      return yield* Effect.promise(() => use({ port, pid: child.pid! }))
    })
  )

const main = withFreshDatabase("abuse", (url) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* seedOrganization({ name: "Well-behaved", receivables, key: politeKey })
    const flooder = yield* seedOrganization({ name: "Flooder", receivables, key: floodKeys[0]! })
    for (const key of floodKeys.slice(1)) {
      yield* sql`INSERT INTO api_keys (org_id, key_hash, display_start)
        VALUES (${flooder}, sha256(convert_to(${key}, 'UTF8')), ${key.slice(0, 12)})`
    }
    log(`seeded two organizations of ${receivables.toLocaleString("en")} receivables; ${floodKeyCount} keys flood`)
    const phases: Array<Phase> = []
    yield* withServer(url, serviceDefaults, async (server) => {
      phases.push(await measure(server, "quiet", false))
      phases.push(await measure(server, "flood, organization limit on", true))
    })
    yield* withServer(url, withoutOrgLimit, async (server) => {
      phases.push(await measure(server, "flood, no organization limit", true))
    })
    const header = ["phase".padEnd(34), "p50 ms".padStart(8), "p99 ms".padStart(8), "statuses".padEnd(14)]
    process.stdout.write(
      [
        `well-behaved tenant: ${path}, every ${politeEveryMs} ms; flood: ${floodKeyCount} keys x ${connectionsPerKey} connections; ${seconds} s a phase`,
        [
          ...header,
          "flood/s".padStart(8),
          "200/s".padStart(8),
          "429/s".padStart(8),
          "CPU cores".padStart(10),
          "CPU µs/answer".padStart(14)
        ].join("  "),
        ...phases.map(line),
        ""
      ].join("\n")
    )
  })
)

const scope = Effect.runSync(Scope.make())
Effect.runPromise(main.pipe(Scope.provide(scope))).finally(() => Effect.runPromise(Scope.close(scope, Exit.void)))
