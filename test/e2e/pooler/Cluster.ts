/**
 * The service scaled out as operators run it behind PgBouncer in transaction mode: API processes
 * (`serve`) and workers (`worker`) as child processes, each with the pooler's address as
 * `DATABASE_URL`, prepared statements off, and the server's own address as `DATABASE_DIRECT_URL`
 * (for `LISTEN` and migrations). Everything is stopped when the scope closes.
 */
import { hostname } from "node:os"
import { Effect } from "effect"
import { type AppProcess, healthy, spawnApp } from "../../support/AppProcess.ts"
import * as PgBouncer from "../../support/PgBouncer.ts"
import { freePort } from "../../support/ports.ts"

export interface Cluster {
  /** The API processes' base URLs, `http://127.0.0.1:<port>`. */
  readonly apis: ReadonlyArray<string>
  /** The API processes, in the order of `apis`. */
  readonly servers: ReadonlyArray<AppProcess>
  readonly workers: ReadonlyArray<AppProcess>
  /** The worker name a process claims pairs under (`lease_owner`, `sync_runs.worker`). */
  readonly workerName: (worker: AppProcess) => string
}

export interface ClusterOptions {
  readonly apis: number
  readonly workers: number
  /** Server connections PgBouncer shares among every process. */
  readonly serverConnections: number
  readonly env?: Readonly<Record<string, string>>
}

// Stops a process at the end: SIGTERM, as operators do, and SIGKILL if it has not exited in 15 s.
const stop = (app: AppProcess) =>
  Effect.promise(async () => {
    if (app.child.exitCode !== null || app.child.signalCode !== null) return
    app.child.kill("SIGTERM")
    const timer = setTimeout(() => app.child.kill("SIGKILL"), 15_000)
    await app.exited
    clearTimeout(timer)
  })

/** The cluster on the database of `directUrl`, started and healthy. */
export const start = (directUrl: string, options: ClusterOptions) =>
  Effect.gen(function* () {
    const bouncer = yield* PgBouncer.start(directUrl, { poolSize: options.serverConnections })
    const env = {
      DATABASE_URL: bouncer.pooled(directUrl),
      DATABASE_DIRECT_URL: directUrl,
      DATABASE_PREPARED_STATEMENTS: "false",
      DATABASE_POOL_SIZE: "4",
      DEMO_SEED: "false",
      HOST: "127.0.0.1",
      ...options.env
    }
    const apis: Array<string> = []
    const serving: Array<AppProcess> = []
    const workers: Array<AppProcess> = []
    // All stopped at once at the end, each draining on its own.
    yield* Effect.addFinalizer(() =>
      Effect.all([...serving, ...workers].map(stop), { concurrency: "unbounded", discard: true })
    )
    for (let i = 0; i < options.apis; i++) {
      const port = yield* Effect.promise(freePort)
      serving.push(spawnApp({ ...env, PORT: String(port) }, "serve"))
      apis.push(`http://127.0.0.1:${port}`)
    }
    for (let i = 0; i < options.workers; i++) workers.push(spawnApp(env, "worker"))
    yield* Effect.promise(() => Promise.all(apis.map((base, i) => healthy(base, serving[i]!, 60_000))))
    const workerName = (worker: AppProcess) => `${hostname()}:${worker.child.pid}`
    return { apis, servers: serving, workers, workerName } satisfies Cluster
  })
