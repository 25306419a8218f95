/**
 * The API benchmark (`npm run bench:api`): a fresh embedded PostgreSQL with the dataset of
 * `dataset.ts`, then our server and the reference in `bench/baseline/` under the same load on
 * loopback, 32 and 128 connections, one scenario after another; for the scenarios the latency
 * targets name, also the floor in `bench/floor/` (our data path behind a bare `node:http`
 * server), with and without its audit write. Prints requests/s, p50 and p99 latency, the CPU time
 * the server, PostgreSQL and the load generator spent per request, and the server's peak memory,
 * as a Markdown table.
 *
 * Options (environment): BENCH_SECONDS per scenario (default 10), BENCH_WARMUP seconds (3),
 * BENCH_DATA_DIR to keep the generated cluster there and reuse it on the next run (by default a
 * temporary directory, removed at the end), BENCH_ONLY to run the scenarios whose name contains it,
 * BENCH_ROUNDS to measure each scenario's servers in turn that many times (default 1),
 * BENCH_STATEMENTS=1 to report PostgreSQL's planning and execution time per statement at the end,
 * BENCH_PROFILE=<directory> to write our server's CPU profile there (`node --cpu-prof`) when it stops,
 * BENCH_BEFORE=<directory of another checkout> to measure that checkout's server too, as "before",
 * in turn with ours (a change's before and after, side by side in one run).
 * BENCH_SMOKE=1 runs every server and scenario in seconds: a tiny dataset, 4 connections, a fixed
 * number of requests a line, no warm-up. Our server runs in its `serve` role: the API alone,
 * without the sync scheduler.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { chmod, mkdir, mkdtemp, readFile, rm } from "node:fs/promises"
import http from "node:http"
import { tmpdir } from "node:os"
import { isAbsolute, join, resolve } from "node:path"
import { PgClient } from "@effect/sql-pg"
import autocannon from "autocannon"
import { Effect, Exit, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as Embedded from "../../adapters/postgres/embedded/Embedded.ts"
import * as Migrations from "../../adapters/postgres/Migrations.ts"
import { freePort } from "../../test/support/ports.ts"
import { postgresCpuSeconds, postmasterPid, processCpuSeconds } from "../ProcessCpu.ts"
import { option, sized, smoke } from "../support/Smoke.ts"
import { generate, keyOf, organizations } from "./dataset.ts"

const seconds = option("BENCH_SECONDS", 10, 1)
const warmup = option("BENCH_WARMUP", 3, 0)
const rounds = option("BENCH_ROUNDS", 1, 1)
// A smoke run sends a fixed number of requests a line rather than loading for seconds.
const smokeRequests = 20
const root = join(import.meta.dirname, "..", "..")
const statements = process.env.BENCH_STATEMENTS === "1"
const profileArgs = process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []

const log = (line: string) => process.stderr.write(`${line}\n`)

const startServer = async (
  command: ReadonlyArray<string>,
  env: Record<string, string>,
  port: number,
  nodeArgs: ReadonlyArray<string> = []
) => {
  const [script, ...args] = command as [string, ...Array<string>]
  const child = spawn(process.execPath, [...nodeArgs, isAbsolute(script) ? script : join(root, script), ...args], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"]
  })
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/v1/receivables`).then(
      () => true,
      () => false
    )
    if (ok) return child
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${script} did not start`)
}

const peakMemoryMiB = async (child: ChildProcess) => {
  const status = await readFile(`/proc/${child.pid}/status`, "utf8")
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return Math.round(kb / 1024)
}

const randomOf = <A>(items: ReadonlyArray<A>) => items[Math.floor(Math.random() * items.length)]!

interface Scenario {
  readonly name: string
  /** The next request: its path, and the organization whose key it carries. */
  readonly next: () => { readonly path: string; readonly org: number }
}

const load = async (port: number, connections: number, scenario: Scenario, duration: number) => {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    // autocannon ends a run on its next sample tick, by default a second away.
    ...(smoke ? { amount: smokeRequests, sampleInt: 50 } : { duration }),
    requests: [
      {
        setupRequest: (request) => {
          const { path, org } = scenario.next()
          return { ...request, path, headers: { authorization: `Bearer ${keyOf(org)}` } }
        }
      }
    ]
  })
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })

/** The median latency of `count` requests sent one after another on one kept-alive connection. */
const sequentialMedianMs = async (port: number, scenario: Scenario, count: number) => {
  const times: Array<number> = []
  for (let i = 0; i < count; i++) {
    const { path, org } = scenario.next()
    const started = process.hrtime.bigint()
    await new Promise<void>((resolve, reject) => {
      const request = http.get(
        { host: "127.0.0.1", port, path, agent, headers: { authorization: `Bearer ${keyOf(org)}` } },
        (response) => {
          response.resume()
          response.on("end", resolve)
        }
      )
      request.on("error", reject)
    })
    times.push(Number(process.hrtime.bigint() - started) / 1e6)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}

const main = Effect.gen(function* () {
  const kept = process.env.BENCH_DATA_DIR
  if (kept !== undefined) yield* Effect.promise(() => mkdir(kept, { recursive: true }))
  const baseDir = kept ?? (yield* Effect.promise(() => mkdtemp(join(tmpdir(), "receivables-bench-"))))
  // The server may run as another user (when we are root): let it reach the directory.
  yield* Effect.promise(() => chmod(baseDir, 0o755))
  if (kept === undefined) {
    yield* Effect.addFinalizer(() => Effect.promise(() => rm(baseDir, { recursive: true, force: true })))
  }
  const server = yield* Embedded.start({
    baseDir: join(baseDir, "postgres"),
    port: yield* Effect.promise(freePort),
    settings: {
      shared_buffers: sized("2GB", "128MB"),
      max_connections: "100",
      ...(statements
        ? { shared_preload_libraries: "pg_stat_statements", "pg_stat_statements.track_planning": "on" }
        : {})
    }
  })
  const db = PgClient.layer({ url: Redacted.make(server.url), maxConnections: 2 })

  // A kept cluster is migrated to this build's schema and keeps its dataset.
  yield* Migrations.migrate.pipe(Effect.provide(db))
  const [present] = yield* Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: bigint }>`SELECT count(*) AS n FROM organizations`
  ).pipe(Effect.provide(db))
  if (Number(present!.n) === 0) {
    const started = Date.now()
    yield* generate.pipe(Effect.provide(db))
    log(`dataset generated in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }

  const sample = yield* Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [counts] = yield* sql<{ receivables: bigint; history: bigint }>`
      SELECT (SELECT count(*) FROM receivables) AS receivables, (SELECT count(*) FROM receivable_history) AS history`
    const ids = yield* sql<{ id: string; org: number; vendor_id: string }>`
      SELECT r.id, r.vendor_id, o.n AS org
      FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM organizations) o
      JOIN LATERAL (SELECT id, vendor_id FROM receivables WHERE org_id = o.id ORDER BY md5(id) LIMIT 20) r ON true`
    return { counts: counts!, ids }
  }).pipe(Effect.provide(db))
  log(`${sample.counts.receivables} receivables, ${sample.counts.history} history entries`)

  // The limits are not what is measured here: they are set out of reach.
  const env = {
    DATABASE_URL: server.url,
    DATABASE_POOL_SIZE: "10",
    RATE_LIMIT_PER_SECOND: "1000000",
    RATE_LIMIT_BURST: "1000000",
    ORG_RATE_LIMIT_PER_SECOND: "1000000",
    ORG_RATE_LIMIT_BURST: "1000000",
    KEY_MAX_IN_FLIGHT: "10000",
    ORG_MAX_IN_FLIGHT: "10000"
  }
  const ourPort = yield* Effect.promise(freePort)
  const basePort = yield* Effect.promise(freePort)
  const ours = yield* Effect.acquireRelease(
    Effect.promise(() => startServer(["app/main.ts", "serve"], env, ourPort, profileArgs)),
    (child) => Effect.sync(() => child.kill("SIGTERM"))
  )
  const beforeTree = process.env.BENCH_BEFORE
  const beforePort = yield* Effect.promise(freePort)
  const before =
    beforeTree === undefined
      ? undefined
      : yield* Effect.acquireRelease(
          Effect.promise(() => startServer([join(resolve(beforeTree), "app", "main.ts"), "serve"], env, beforePort)),
          (child) => Effect.sync(() => child.kill("SIGTERM"))
        )
  const baseline = yield* Effect.acquireRelease(
    Effect.promise(() => startServer(["bench/baseline/server.ts"], env, basePort)),
    (child) => Effect.sync(() => child.kill("SIGTERM"))
  )
  const floorPort = yield* Effect.promise(freePort)
  const floor = yield* Effect.acquireRelease(
    Effect.promise(() => startServer(["bench/floor/server.ts"], env, floorPort)),
    (child) => Effect.sync(() => child.kill("SIGTERM"))
  )
  const unauditedFloorPort = yield* Effect.promise(freePort)
  const unauditedFloor = yield* Effect.acquireRelease(
    Effect.promise(() => startServer(["bench/floor/server.ts"], { ...env, FLOOR_AUDIT: "off" }, unauditedFloorPort)),
    (child) => Effect.sync(() => child.kill("SIGTERM"))
  )

  // List requests come from random organizations; a filter or an id is always one of the
  // requesting organization's own, so that every answer has data.
  const anyOrg = () => 1 + Math.floor(Math.random() * organizations)
  // The floor runs where the latency targets apply: the default list and the single receivable.
  const scenarios: ReadonlyArray<Scenario & { readonly baseline: boolean; readonly floor?: boolean }> = [
    {
      name: "list, default window",
      next: () => ({ path: "/v1/receivables", org: anyOrg() }),
      baseline: true,
      floor: true
    },
    {
      name: "list, all, page 5",
      next: () => ({ path: "/v1/receivables?verified_since=all&page=5", org: anyOrg() }),
      baseline: true
    },
    {
      name: "list, vendor filter",
      next: () => {
        const pick = randomOf(sample.ids)
        return { path: `/v1/receivables?verified_since=all&vendor_id=${pick.vendor_id}`, org: Number(pick.org) }
      },
      baseline: true
    },
    {
      name: "list, expand[]=history",
      next: () => ({ path: "/v1/receivables?expand[]=history", org: anyOrg() }),
      baseline: true
    },
    {
      name: "single receivable",
      next: () => {
        const pick = randomOf(sample.ids)
        return { path: `/v1/receivables/${pick.id}`, org: Number(pick.org) }
      },
      baseline: false,
      floor: true
    }
  ]

  if (statements) {
    const sql = SqlClient.SqlClient
    yield* Effect.flatMap(sql, (sql) =>
      Effect.andThen(sql`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`, sql`SELECT pg_stat_statements_reset()`)
    ).pipe(Effect.provide(db))
    // At the end, where PostgreSQL spent its time: planning and execution per statement.
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(sql, (sql) =>
        Effect.map(
          sql<{ query: string; calls: bigint; exec: number; plan: number }>`
            SELECT left(regexp_replace(query, '\s+', ' ', 'g'), 80) AS query, calls,
              round(total_exec_time::numeric)::float AS exec, round(total_plan_time::numeric)::float AS plan
            FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 8`,
          (top) => {
            for (const row of top) {
              log(`${row.calls} calls, planning ${row.plan} ms, executing ${row.exec} ms: ${row.query}`)
            }
          }
        )
      ).pipe(Effect.provide(db), Effect.orDie)
    )
  }
  const postmaster = yield* postmasterPid.pipe(Effect.provide(db))
  const rows: Array<string> = []
  const only = process.env.BENCH_ONLY
  for (const connections of sized([32, 128], [4])) {
    for (const scenario of scenarios.filter((s) => only === undefined || s.name.includes(only))) {
      const targets = [
        ["ours", ourPort, ours],
        ...(before === undefined ? [] : [["before", beforePort, before] as const]),
        ...(scenario.baseline ? [["reference", basePort, baseline] as const] : []),
        ...(scenario.floor
          ? ([
              ["floor", floorPort, floor],
              ["floor, no audit", unauditedFloorPort, unauditedFloor]
            ] as const)
          : [])
      ] as const
      // Round after round, so that the servers compared share the machine's speed of the minute.
      const measured = Array.from({ length: rounds }, () => targets).flat()
      for (const [who, port, child] of measured) {
        if (warmup > 0) yield* Effect.promise(() => load(port, connections, scenario, warmup))
        const serverCpuBefore = processCpuSeconds(child.pid!)
        const postgresCpuBefore = postgresCpuSeconds(postmaster)
        const loadCpuBefore = processCpuSeconds(process.pid)
        const figures = yield* Effect.promise(() => load(port, connections, scenario, seconds))
        // A smoke run checks that every server answers; a full run reports errors in its table.
        if (smoke && figures.errors > 0) {
          return yield* Effect.die(new Error(`${who}, ${scenario.name}: ${figures.errors} errors`))
        }
        const perRequest = (cpuSeconds: number) => ((cpuSeconds * 1000) / figures.requests).toFixed(2)
        const serverCpu = perRequest(processCpuSeconds(child.pid!) - serverCpuBefore)
        const postgresCpu = perRequest(postgresCpuSeconds(postmaster) - postgresCpuBefore)
        const loadCpu = perRequest(processCpuSeconds(process.pid) - loadCpuBefore)
        const memory = yield* Effect.promise(() => peakMemoryMiB(child))
        const row = `| ${scenario.name} | ${connections} | ${who} | ${figures.rps} | ${figures.p50} | ${figures.p99} | ${serverCpu} | ${postgresCpu} | ${loadCpu} | ${memory} | ${figures.errors} |`
        log(row)
        rows.push(row)
      }
    }
  }
  process.stdout.write(
    `${[
      "| scenario | connections | server | requests/s | p50 ms | p99 ms | server CPU ms/request | PostgreSQL CPU ms/request | load generator CPU ms/request | peak RSS MiB | errors |",
      "|---|---|---|---|---|---|---|---|---|---|---|",
      ...rows
    ].join("\n")}\n`
  )

  // What authentication and the audit log add to a request, one request at a time (no
  // queueing), timed with a microsecond clock: a single receivable with the key cache on and
  // off, /health (neither authenticated nor audited: the cost of HTTP alone), and the time the
  // server spent before its audit write, read back from the audit log itself.
  const uncachedPort = yield* Effect.promise(freePort)
  yield* Effect.acquireRelease(
    Effect.promise(() => startServer(["app/main.ts", "serve"], { ...env, KEY_CACHE_SECONDS: "0" }, uncachedPort)),
    (child) => Effect.sync(() => child.kill("SIGTERM"))
  )
  // A small set of receivables, all warm in the database's cache, so that both runs do the same work.
  const warmSet = sample.ids.slice(0, 50)
  const single: Scenario = {
    name: "single receivable, warm",
    next: () => {
      const pick = randomOf(warmSet)
      return { path: `/v1/receivables/${pick.id}`, org: Number(pick.org) }
    }
  }
  const health: Scenario = { name: "health", next: () => ({ path: "/health", org: 1 }) }
  const median = (port: number, scenario: Scenario) =>
    Effect.promise(async () => {
      await sequentialMedianMs(port, scenario, sized(1_000, 5))
      const started = new Date()
      const p50 = await sequentialMedianMs(port, scenario, sized(3_000, 10))
      return { p50, started }
    })
  const healthRun = yield* median(ourPort, health)
  const cachedRun = yield* median(ourPort, single)
  const uncachedRun = yield* median(uncachedPort, single)
  const serverSide = (since: Date, until: Date) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ p50: number }>`
        SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50 FROM audit_log
        WHERE at >= ${since} AND at < ${until} AND path LIKE '/v1/receivables/%'`
      return Number(row!.p50)
    }).pipe(Effect.provide(db))
  const cachedServer = yield* serverSide(cachedRun.started, uncachedRun.started)
  const uncachedServer = yield* serverSide(uncachedRun.started, new Date())
  process.stdout.write(
    `${[
      "",
      "| one request at a time | client p50 ms | server p50 ms before the audit write |",
      "|---|---|---|",
      `| /health (no key, no audit) | ${healthRun.p50.toFixed(2)} | - |`,
      `| single receivable, key cache on | ${cachedRun.p50.toFixed(2)} | ${cachedServer.toFixed(2)} |`,
      `| single receivable, key cache off | ${uncachedRun.p50.toFixed(2)} | ${uncachedServer.toFixed(2)} |`
    ].join("\n")}\n`
  )
})

const scope = Effect.runSync(Scope.make())
Effect.runPromise(main.pipe(Scope.provide(scope))).finally(() => Effect.runPromise(Scope.close(scope, Exit.void)))
