/**
 * What every abuse benchmark shares: a fresh database with two tenants (a well-behaved one and an
 * attacker), the app in its `serve` role (and, with BENCH_BEFORE=<another checkout>, that
 * checkout's app too, measured the same way in the same run), the well-behaved tenant's requests
 * timed one at a time from a loopback address of its own, and the server's memory sampled from
 * `/proc`. Every loop is bounded in count and time; traffic stays on loopback.
 */

import { readFileSync } from "node:fs"
import http from "node:http"
import { resolve } from "node:path"
import { Effect } from "effect"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { freePort } from "../../test/support/ports.ts"
import { quantile, seedOrganization, startServer } from "../support/OneOrganization.ts"

export const victimKey = makeApiKey("pr", new Uint8Array(secretBytes).fill(91))
export const attackerKey = makeApiKey("pr", new Uint8Array(secretBytes).fill(92))

/** The well-behaved tenant's address, apart from the attacker's. */
export const victimAddress = "127.0.0.9"

/** Seeds the two tenants: the victim with `receivables`, the attacker with as many. */
export const seedTenants = (receivables: number) =>
  Effect.all([
    seedOrganization({ name: "Well-behaved", receivables, key: victimKey }),
    seedOrganization({ name: "Attacker", receivables, key: attackerKey })
  ])

export interface Server {
  readonly name: string
  readonly port: number
  readonly pid: number
}

/**
 * The service's own limits, as an operator runs it: the benchmarks of one organization set them
 * out of reach, these measure them.
 */
export const serviceDefaults = {
  RATE_LIMIT_PER_SECOND: "20",
  RATE_LIMIT_BURST: "100",
  ORG_RATE_LIMIT_PER_SECOND: "50",
  ORG_RATE_LIMIT_BURST: "250",
  KEY_MAX_IN_FLIGHT: "4",
  ORG_MAX_IN_FLIGHT: "8"
}

/** Ours, and the checkout named by BENCH_BEFORE if any, each on a port of its own, with the service's limits. */
export const startServers = (url: string, env: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const trees: Array<[string, string | undefined]> = [["ours", undefined]]
    if (process.env.BENCH_BEFORE) trees.push(["before", resolve(process.env.BENCH_BEFORE)])
    const servers: Array<Server> = []
    for (const [name, tree] of trees) {
      const port = yield* Effect.promise(freePort)
      const child = yield* Effect.acquireRelease(
        Effect.promise(() => startServer(url, port, { DEMO_SEED: "false", ...serviceDefaults, ...env }, tree)),
        (child) => Effect.sync(() => child.kill("SIGTERM"))
      )
      servers.push({ name, port, pid: child.pid! })
    }
    return servers
  })

/** Resident memory of a process now, in MiB (NaN where `/proc` is not there). */
export const rssMiB = (pid: number): number => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("VmRSS:"))
    return Number(line?.split(/\s+/)[1]) / 1024
  } catch {
    return Number.NaN
  }
}

/** Samples a process's memory every 100 ms while `during` runs; the peak seen. */
export const peakRss = async <A>(pid: number, during: Promise<A>): Promise<[A, number]> => {
  let peak = rssMiB(pid)
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid))
  }, 100)
  try {
    return [await during, Math.max(peak, rssMiB(pid))]
  } finally {
    clearInterval(timer)
  }
}

const victimAgent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: victimAddress })

/**
 * One request of the victim, timed from before its connection when `fresh`; a failure (refused,
 * reset, timed out, 4xx or 5xx) counts as failed.
 */
const victimRequest = (port: number, path: string, fresh: boolean) =>
  new Promise<{ ms: number; ok: boolean }>((done) => {
    const started = process.hrtime.bigint()
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6
    const sent = http.get(
      {
        host: "127.0.0.1",
        port,
        path,
        ...(fresh ? { agent: false, localAddress: victimAddress } : { agent: victimAgent }),
        headers: { authorization: `Bearer ${victimKey}` }
      },
      (response) => {
        response.resume()
        response.on("end", () => done({ ms: elapsed(), ok: (response.statusCode ?? 0) < 400 }))
        response.on("error", () => done({ ms: elapsed(), ok: false }))
      }
    )
    sent.setTimeout(30_000, () => sent.destroy())
    sent.on("error", () => done({ ms: elapsed(), ok: false }))
  })

export interface VictimFigures {
  readonly p50: number
  readonly p99: number
  readonly successPercent: number
  readonly requests: number
}

/** Between the victim's requests: 12.5 a second, inside its key's rate limit (20 a second). */
const victimPaceMillis = 80

/**
 * The victim's requests, one at a time and paced, for `seconds` (at most `maxRequests`), each on a
 * connection of its own when `freshConnections` (as a client that connects anew would).
 */
export const measureVictim = async (
  port: number,
  options: {
    readonly seconds: number
    readonly maxRequests: number
    readonly path?: string
    readonly freshConnections?: boolean
  }
): Promise<VictimFigures> => {
  const until = Date.now() + options.seconds * 1000
  const timings: Array<number> = []
  let ok = 0
  while (Date.now() < until && timings.length < options.maxRequests) {
    const result = await victimRequest(port, options.path ?? "/v1/vendors", options.freshConnections === true)
    timings.push(result.ms)
    if (result.ok) ok++
    await new Promise((done) => setTimeout(done, Math.max(0, victimPaceMillis - result.ms)))
  }
  return {
    p50: quantile(timings, 0.5),
    p99: quantile(timings, 0.99),
    successPercent: (100 * ok) / Math.max(1, timings.length),
    requests: timings.length
  }
}

export const tableHeader = [
  "| server | phase | victim requests | victim success % | victim p50 ms | victim p99 ms | p99 vs quiet | server RSS peak MiB |",
  "|---|---|---|---|---|---|---|---|"
]

export const tableRow = (server: string, phase: string, figures: VictimFigures, quiet: VictimFigures, rss: number) =>
  `| ${server} | ${phase} | ${figures.requests} | ${figures.successPercent.toFixed(1)} | ${figures.p50.toFixed(1)} | ${figures.p99.toFixed(1)} | ${(figures.p99 / quiet.p99).toFixed(2)}x | ${rss.toFixed(0)} |`
