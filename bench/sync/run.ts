/**
 * The sync benchmark (`npm run bench:sync`): on a fresh embedded PostgreSQL, a first sync of
 * 100,000 receivables over 1,000 pairs from the simulator, then a resync in which 5% of them
 * changed; receivables per second for both, and in the same run two floors: `COPY` of the rows
 * the first sync wrote (receivables, their events and batches, the runs) into the real schema of
 * a fresh database, indexes, constraints and triggers and all (the fair floor), and `COPY` of the
 * receivables alone into a bare table (the bare floor). Then peak memory of one pair of 200,000 receivables against ten pairs
 * of 20,000, each in a process of its own. Each sync also reports its apply transactions' length
 * (`sync_runs.committed_at` less `fetched_at`), median and longest per pair. Every run gets a fresh database of its own. Options
 * (environment): BENCH_PAIRS (1000), BENCH_PER_PAIR (100), SYNC_CONCURRENCY (4),
 * BENCH_SKIP_MEMORY=1; BENCH_SMOKE=1 for a run of seconds (8 pairs of 10, memory at 2 × 50 and 1 × 100);
 * BENCH_BEFORE=<checkout>[,<checkout>...] to run this checkout and those side by side instead, in
 * BENCH_ROUNDS rounds (3; 1 in smoke), see `SideBySide.ts`.
 */
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { PgClient } from "@effect/sql-pg"
import { DateTime, Effect, Exit, Layer, Redacted, Scope, Stream } from "effect"
import { SqlClient } from "effect/sql"
import * as RandomIds from "../../adapters/ids/RandomIds.ts"
import * as Connectors from "../../adapters/portals/Connectors.ts"
import * as Simulator from "../../adapters/portals/simulator/SimulatorConnector.ts"
import * as PgPairStore from "../../adapters/postgres/PgPairStore.ts"
import * as EnvironmentSecrets from "../../adapters/secrets/EnvironmentSecrets.ts"
import type { FetchedDocument } from "../../core/receivables/domain/PairSync.ts"
import type { PortalConnector } from "../../core/receivables/ports/PortalConnector.ts"
import * as Scheduler from "../../core/receivables/services/Scheduler.ts"
import { SyncEngine } from "../../core/receivables/services/SyncEngine.ts"
import { postgresCpuSeconds, postmasterPid } from "../ProcessCpu.ts"
import { migratedDatabase, startCluster } from "../support/FreshDatabase.ts"
import { option, sized } from "../support/Smoke.ts"
import { bareFloor, fairFloor } from "./Floors.ts"
import { sideBySide } from "./SideBySide.ts"

const pairs = option("BENCH_PAIRS", 1000, 8)
const perPair = option("BENCH_PER_PAIR", 100, 10)
const concurrency = option("SYNC_CONCURRENCY", 4, 4)
const memoryConfigurations = sized(
  [
    [10, 20_000],
    [1, 200_000]
  ] as const,
  [
    [2, 50],
    [1, 100]
  ] as const
)
const log = (line: string) => process.stderr.write(`${line}\n`)

// The simulator at a fixed moment, every document issued; on the resync, one document in twenty
// has moved on (a new status and a corrected amount).
let resync = false
const fixedNow = DateTime.makeUnsafe("2026-06-01T00:00:00Z")
const changed = (document: FetchedDocument, index: number): FetchedDocument =>
  resync && index % 20 === 0
    ? { ...document, portalStatus: `${document.portalStatus} (revised)`, amountCents: document.amountCents + 1 }
    : document
const benchConnector: PortalConnector = {
  ...Simulator.connector,
  kind: "bench",
  fetch: (pair) =>
    Simulator.connector.fetch({ ...pair, now: fixedNow }).pipe(
      Stream.zipWithIndex,
      Stream.map(([d, i]) => changed(d, i))
    )
}

// On a fresh database: an organization, its vendors, ten debtors and `count` pairs.
const setup = (count: number, receivables: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Bench') RETURNING id`
    const vendors = Math.ceil(count / 10)
    yield* sql`INSERT INTO vendors (org_id, name) SELECT ${org!.id}, 'Vendor ' || g FROM generate_series(1, ${vendors}) g`
    yield* sql`INSERT INTO debtors (name) SELECT 'Debtor ' || g FROM generate_series(1, 10) g`
    yield* sql`
      INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
      SELECT v.org_id, v.id, d.id, 'bench',
        jsonb_build_object('seed', row_number() OVER (), 'receivables', ${receivables},
          'startedAt', '2025-01-01T00:00:00Z', 'perDay', 100000),
        now() - interval '1 minute'
      FROM vendors v CROSS JOIN debtors d
      LIMIT ${count}`
  })

// Checkpoints flush every dirty page and fsync it: on a slow or shared disk one can stall a run
// for seconds, so each run reports how many fell inside it.
const checkpoints = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ n: bigint }>`SELECT num_timed + num_requested AS n FROM pg_stat_checkpointer`
  return Number(row!.n)
})

const syncAll = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const checkpointsBefore = yield* checkpoints
  const postmaster = yield* postmasterPid
  const postgresCpuBefore = postgresCpuSeconds(postmaster)
  const engineCpuBefore = process.cpuUsage()
  yield* sql`UPDATE integrations SET next_sync_at = now() - interval '1 minute', lease_expires_at = NULL`
  const [mark] = yield* sql<{ since: Date }>`SELECT clock_timestamp() AS since`
  const started = performance.now()
  let synced = 0
  yield* Scheduler.drain({
    worker: "bench",
    concurrency,
    onOutcome: (outcome) =>
      outcome._tag === "Failed"
        ? Effect.die(new Error(outcome.error))
        : Effect.sync(() => {
            synced += outcome.counts.fetched
          })
  })
  const seconds = (performance.now() - started) / 1000
  const engineCpu = process.cpuUsage(engineCpuBefore)
  // The apply's transaction, from the fetch's end to the commit (it also waits for the pair's lock,
  // which no other sync of the pair holds here).
  const [apply] = yield* sql<{ median: number; max: number }>`
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM committed_at - fetched_at)) * 1000 AS median,
      max(extract(epoch FROM committed_at - fetched_at)) * 1000 AS max
    FROM sync_runs WHERE started_at >= ${mark!.since} AND outcome = 'succeeded'`
  return {
    applyMs: { median: Number(apply?.median ?? 0), max: Number(apply?.max ?? 0) },
    seconds,
    synced,
    checkpoints: (yield* checkpoints) - checkpointsBefore,
    postgresCpu: postgresCpuSeconds(postmaster) - postgresCpuBefore,
    engineCpu: (engineCpu.user + engineCpu.system) / 1e6
  }
})

const engineOn = (url: string) => {
  const db = PgClient.layer({ url: Redacted.make(url), maxConnections: concurrency + 2 })
  return SyncEngine.layer.pipe(
    Layer.provideMerge(PgPairStore.layer),
    Layer.provide([Connectors.layerOf([benchConnector]), RandomIds.layer, EnvironmentSecrets.layer]),
    Layer.provideMerge(db)
  )
}

// Peak memory is measured in a fresh process per configuration (this script, started again with
// BENCH_MEMORY_RUN, on a fresh database), as the operating system's peak resident set: a process
// that has already synced keeps the heap it grew, which would favour whichever configuration runs first.
const memoryRun = (url: string, count: number, size: number) =>
  Effect.gen(function* () {
    yield* setup(count, size)
    const run = yield* syncAll
    process.stdout.write(
      `${JSON.stringify({ seconds: run.seconds, peakRssMiB: process.resourceUsage().maxRSS / 1024, applyMs: run.applyMs.max })}\n`
    )
  }).pipe(Effect.provide(engineOn(url)))

const measureMemory = (adminUrl: string, count: number, size: number) =>
  Effect.scoped(
    Effect.map(migratedDatabase(adminUrl), (url) => {
      const output = execFileSync(process.execPath, [...process.execArgv, import.meta.filename], {
        env: { ...process.env, BENCH_MEMORY_RUN: `${count}x${size}`, BENCH_MEMORY_URL: url },
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"]
      })
      return JSON.parse(output.trim().split("\n").at(-1)!) as { seconds: number; peakRssMiB: number; applyMs: number }
    })
  )

const main = Effect.gen(function* () {
  const server = yield* startCluster("sync")
  const engine = engineOn(yield* migratedDatabase(server.url))
  const rate = (n: number, s: number) => Math.round(n / s).toLocaleString("en")
  const share = (floor: { seconds: number }, run: { seconds: number }) => `${(floor.seconds / run.seconds).toFixed(2)}x`

  const results = yield* Effect.gen(function* () {
    yield* setup(pairs, perPair)
    resync = false
    const first = yield* syncAll
    log(`first sync: ${first.synced} receivables in ${first.seconds.toFixed(1)} s, ${first.checkpoints} checkpoint(s)`)
    log(`  CPU: PostgreSQL ${first.postgresCpu.toFixed(2)} s, engine ${first.engineCpu.toFixed(2)} s`)
    log(
      `  apply transaction per pair: median ${first.applyMs.median.toFixed(1)} ms, max ${first.applyMs.max.toFixed(1)} ms`
    )
    const fair = yield* fairFloor(server.url)
    log(`fair COPY floor: the first sync's rows (${fair.rows} receivables) in ${fair.seconds.toFixed(2)} s`)
    resync = true
    const second = yield* syncAll
    log(`resync: ${second.synced} receivables in ${second.seconds.toFixed(1)} s, ${second.checkpoints} checkpoint(s)`)
    log(`  CPU: PostgreSQL ${second.postgresCpu.toFixed(2)} s, engine ${second.engineCpu.toFixed(2)} s`)
    log(
      `  apply transaction per pair: median ${second.applyMs.median.toFixed(1)} ms, max ${second.applyMs.max.toFixed(1)} ms`
    )
    const floor = yield* bareFloor
    log(`bare COPY floor: ${floor.rows} rows in ${floor.seconds.toFixed(2)} s`)
    const memory: Array<string> = []
    if (process.env.BENCH_SKIP_MEMORY !== "1") {
      for (const [count, size] of memoryConfigurations) {
        const run = yield* measureMemory(server.url, count, size)
        memory.push(
          `| ${count} × ${size.toLocaleString("en")} | ${run.seconds.toFixed(1)} | ${Math.round(run.peakRssMiB)} | ${Math.round(run.applyMs)} |`
        )
        log(memory.at(-1)!)
      }
    }
    return { first, second, fair, floor, memory }
  }).pipe(Effect.provide(engine))

  const { first, second, fair, floor } = results
  process.stdout.write(
    `${[
      `| run | receivables | seconds | receivables/s | vs the fair floor | vs the bare floor | PostgreSQL CPU s | engine CPU s |`,
      "|---|---|---|---|---|---|---|---|",
      `| first sync, ${pairs} pairs | ${first.synced} | ${first.seconds.toFixed(2)} | ${rate(first.synced, first.seconds)} | ${share(fair, first)} | ${share(floor, first)} | ${first.postgresCpu.toFixed(1)} | ${first.engineCpu.toFixed(1)} |`,
      `| resync, 5% changed | ${second.synced} | ${second.seconds.toFixed(2)} | ${rate(second.synced, second.seconds)} | | ${share(floor, second)} | ${second.postgresCpu.toFixed(1)} | ${second.engineCpu.toFixed(1)} |`,
      `| fair floor: COPY of the first sync's rows into the real schema | ${fair.rows} | ${fair.seconds.toFixed(2)} | ${rate(fair.rows, fair.seconds)} | 1x | | | |`,
      `| bare floor: COPY of the receivables into a bare table | ${floor.rows} | ${floor.seconds.toFixed(2)} | ${rate(floor.rows, floor.seconds)} | | 1x | | |`,
      ...(results.memory.length === 0
        ? []
        : [
            "",
            "| pairs × receivables (first sync) | seconds | peak RSS MiB | longest apply transaction ms |",
            "|---|---|---|---|",
            ...results.memory
          ])
    ].join("\n")}\n`
  )
})

const memoryConfiguration = process.env.BENCH_MEMORY_RUN?.split("x").map(Number)
const befores = (process.env.BENCH_BEFORE ?? "").split(",").filter((dir) => dir !== "")
if (befores.length > 0) {
  const table = sideBySide(join(import.meta.dirname, "..", ".."), befores, option("BENCH_ROUNDS", 3, 1))
  process.stdout.write(`${table}\n`)
  process.exit(0)
}
const program =
  memoryConfiguration === undefined
    ? main
    : memoryRun(process.env.BENCH_MEMORY_URL!, memoryConfiguration[0]!, memoryConfiguration[1]!)
const scope = Effect.runSync(Scope.make())
Effect.runPromise(program.pipe(Scope.provide(scope))).finally(() => Effect.runPromise(Scope.close(scope, Exit.void)))
