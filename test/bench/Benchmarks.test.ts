/**
 * Every benchmark runs, always: each one's smoke mode (BENCH_SMOKE=1: the same code at tiny sizes,
 * loopback only, seconds) as a process of its own under the project's Node 24, as `npm run
 * bench:*` would start it. A benchmark that stops working fails here rather than on the day
 * someone needs its figures. Each starts its own embedded PostgreSQL where it needs one, so this
 * file needs no test database. They run three at a time (the database project's `maxConcurrency`),
 * as each mostly waits on the PostgreSQL and processes it starts. Figures are not checked: timing
 * assertions would be flaky.
 */
import { execFile } from "node:child_process"
import { readdirSync } from "node:fs"
import { basename, join } from "node:path"
import { promisify } from "node:util"
import { assert, describe, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..")
const node = join(root, "node_modules", ".bin", "node")
const run = promisify(execFile)

// One entry point per benchmark; the hostile probes need a server, which their smoke run starts.
const entryPoints = [
  "bench/abuse/connection-hold.ts",
  "bench/abuse/heavy-pages.ts",
  "bench/abuse/many-keys.ts",
  "bench/abuse/sign-in-storm.ts",
  "bench/abuse/webhooks.ts",
  "bench/api/run.ts",
  "bench/compression/run.ts",
  "bench/connectors/inbox.ts",
  "bench/connectors/run.ts",
  "bench/csv/run.ts",
  "bench/dashboard/run.ts",
  "bench/events/run.ts",
  "bench/hostile/smoke.ts",
  "bench/keyset/run.ts",
  "bench/scale/limiter.ts",
  "bench/scale/run.ts",
  "bench/scale/throttles.ts",
  "bench/status/run.ts",
  "bench/sync/run.ts",
  "bench/webhooks/run.ts",
  "bench/xml/run.ts"
]

// What a person runs, and what runs beside a benchmark rather than on its own.
const notBenchmarks = new Set(["support", "results", "baseline", "floor"])

describe("benchmarks", () => {
  it("every benchmark directory has an entry point run here", () => {
    const directories = readdirSync(join(root, "bench"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !notBenchmarks.has(entry.name))
      .map((entry) => entry.name)
    const covered = new Set(entryPoints.map((path) => path.split("/")[1]))
    assert.deepStrictEqual(
      directories.filter((name) => !covered.has(name)),
      []
    )
  })

  for (const entryPoint of entryPoints) {
    it.concurrent(`${entryPoint} runs in smoke mode`, { timeout: 300_000 }, async () => {
      const { stdout } = await run(node, [join(root, entryPoint)], {
        cwd: root,
        env: { ...process.env, BENCH_SMOKE: "1" },
        timeout: 170_000,
        maxBuffer: 16 * 2 ** 20
      })
      // A benchmark that ends well has printed its figures.
      assert.isAbove(stdout.trim().length, 0)
    })
  }

  // The list's plans side by side with another checkout's statements (here this one's again).
  it.concurrent("bench/api/plans.ts runs side by side with BENCH_BEFORE in smoke mode", {
    timeout: 300_000
  }, async () => {
    const { stdout } = await run(node, [join(root, "bench/api/plans.ts")], {
      cwd: root,
      env: { ...process.env, BENCH_SMOKE: "1", BENCH_BEFORE: root },
      timeout: 170_000,
      maxBuffer: 16 * 2 ** 20
    })
    assert.include(stdout, "| buffers after / before |")
  })

  // The sync benchmark side by side with another checkout (here this one again), in smoke mode.
  it.concurrent("bench/sync/run.ts runs side by side with BENCH_BEFORE in smoke mode", {
    timeout: 300_000
  }, async () => {
    const { stdout } = await run(node, [join(root, "bench/sync/run.ts")], {
      cwd: root,
      env: { ...process.env, BENCH_SMOKE: "1", BENCH_BEFORE: root },
      timeout: 170_000,
      maxBuffer: 16 * 2 ** 20
    })
    assert.include(stdout, `| this checkout / ${basename(root)} |`)
  })
})
