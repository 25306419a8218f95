/**
 * The hostile-input probes' smoke run (`BENCH_SMOKE=1 node bench/hostile/smoke.ts`): a fresh
 * database, the app in its `serve` role on loopback, then each probe at tiny counts against it, as
 * a process of its own like a person runs them. Fails when a probe fails or a keyless request is
 * answered anything but 401 or 429. Its figures mean nothing.
 */
import { execFile } from "node:child_process"
import { join } from "node:path"
import { promisify } from "node:util"
import { Effect, Exit, Scope } from "effect"
import { freePort } from "../../test/support/ports.ts"
import { withFreshDatabase } from "../support/FreshDatabase.ts"
import { startServer } from "../support/OneOrganization.ts"

const run = promisify(execFile)
const probe = (script: string, args: ReadonlyArray<string>) =>
  Effect.promise(() =>
    run(process.execPath, [join(import.meta.dirname, script), ...args], { env: { ...process.env, BENCH_SMOKE: "1" } })
  ).pipe(Effect.map(({ stdout }) => stdout.trim()))

const main = withFreshDatabase("hostile", (url) =>
  Effect.gen(function* () {
    const port = yield* Effect.promise(freePort)
    // The unauthenticated limits stay as shipped: the flood is meant to reach them.
    const app = yield* Effect.acquireRelease(
      Effect.promise(() => startServer(url, port)),
      (child) => Effect.sync(() => child.kill("SIGTERM"))
    )
    const base = `http://127.0.0.1:${port}`
    const pipelining = yield* probe("pipelining.ts", [base, String(app.pid), "5", "2"])
    const flood = yield* probe("keyless-flood.ts", [base, "200", "4"])
    const statuses = Object.keys((JSON.parse(flood) as { statuses: Record<string, number> }).statuses)
    if (statuses.some((status) => status !== "401" && status !== "429")) {
      return yield* Effect.die(new Error(`keyless requests answered ${statuses.join(", ")}`))
    }
    process.stdout.write(`${pipelining}\n${flood}\n`)
  })
)

const scope = Effect.runSync(Scope.make())
Effect.runPromise(main.pipe(Scope.provide(scope))).finally(() => Effect.runPromise(Scope.close(scope, Exit.void)))
