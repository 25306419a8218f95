/**
 * The commands the operators' page gives, stopped the way a supervisor stops them: SIGTERM to the
 * process it started, or to that process's whole group. Each stops after its drain with exit code
 * 0, leaves no process of its group behind (no node still serving under another parent), frees
 * its port, and (on the embedded database) stops PostgreSQL too.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { type AppProcess, healthy, spawnCommand } from "../support/AppProcess.ts"
import { freePort } from "../support/ports.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

const main = join(import.meta.dirname, "..", "..", "app", "main.ts")

/** Whether nothing listens on `port` of the loopback interface. */
const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

/** Whether any process of the group `pgid` is alive. */
const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/** Waits up to `ms` for `condition`, polling; false if it never held. */
const within = async (ms: number, condition: () => boolean | Promise<boolean>) => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await condition()) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return false
}

type Target = "process" | "group"

/** Sends SIGTERM as a supervisor would; the exit code, and whether the group emptied in time. */
const stop = async (app: AppProcess, target: Target) => {
  const pid = app.child.pid!
  process.kill(target === "group" ? -pid : pid, "SIGTERM")
  const code = await Promise.race([app.exited, new Promise<"running">((r) => setTimeout(() => r("running"), 30_000))])
  const groupGone = await within(10_000, () => !groupAlive(pid))
  // Whatever the outcome, nothing of this test outlives it.
  if (groupAlive(pid)) process.kill(-pid, "SIGKILL")
  return { code, groupGone }
}

const targets: ReadonlyArray<Target> = ["process", "group"]

layer(TestDatabase.layer, { timeout: 240_000, excludeTestServices: true })("SIGTERM from a supervisor", (it) => {
  const serveCommands: ReadonlyArray<readonly [string, string, ReadonlyArray<string>]> = [
    ["npm run serve", "npm", ["run", "serve"]],
    ["node app/main.ts serve", process.execPath, [main, "serve"]]
  ]
  for (const [name, command, args] of serveCommands) {
    for (const target of targets) {
      it.effect(`${name}: SIGTERM to the ${target} drains, exits 0, frees the port, leaves nothing running`, () =>
        Effect.gen(function* () {
          const url = yield* TestDatabase.TestDatabaseUrl
          const port = yield* Effect.promise(freePort)
          const app = spawnCommand(
            command,
            args,
            { DATABASE_URL: url, PORT: String(port), HOST: "127.0.0.1", DEMO_SEED: "false" },
            { group: true }
          )
          yield* Effect.promise(() => healthy(`http://127.0.0.1:${port}`, app))
          const { code, groupGone } = yield* Effect.promise(() => stop(app, target))
          assert.strictEqual(code, 0, app.output())
          assert.isTrue(groupGone, "no process of the group is left")
          assert.isTrue(yield* Effect.promise(() => portFree(port)), "the port is free")
        })
      )
    }
  }

  const workerCommands: ReadonlyArray<readonly [string, string, ReadonlyArray<string>]> = [
    ["npm run worker", "npm", ["run", "worker"]],
    ["node app/main.ts worker", process.execPath, [main, "worker"]]
  ]
  for (const [name, command, args] of workerCommands) {
    for (const target of targets) {
      it.effect(`${name}: SIGTERM to the ${target} stops it after its drain with exit code 0`, () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const url = yield* TestDatabase.TestDatabaseUrl
          // A pair due now: the worker has started once it has synced it.
          const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Signals') RETURNING id`
          const [vendor] = yield* sql<{ id: string }>`
            INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'Vendor') RETURNING id`
          const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('Debtor') RETURNING id`
          const [pair] = yield* sql<{ id: string }>`
            INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
            VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, 'simulator',
              ${JSON.stringify({ seed: 7, receivables: 3, startedAt: "2026-01-01T00:00:00Z", perDay: 1 })}::jsonb,
              now())
            RETURNING id`
          const app = spawnCommand(
            command,
            args,
            { DATABASE_URL: url, DEMO_SEED: "false", SYNC_POLL_SECONDS: "0.2" },
            { group: true }
          )
          const synced = yield* Effect.promise(() =>
            within(60_000, async () => {
              if (app.child.exitCode !== null) throw new Error(`the worker exited: ${app.output()}`)
              const rows = await Effect.runPromise(
                sql<{ n: bigint }>`SELECT count(*) AS n FROM sync_runs WHERE integration_id = ${pair!.id}`.pipe(
                  Effect.orDie
                )
              )
              return Number(rows[0]!.n) > 0
            })
          )
          assert.isTrue(synced, app.output())
          const { code, groupGone } = yield* Effect.promise(() => stop(app, target))
          assert.strictEqual(code, 0, app.output())
          assert.isTrue(groupGone, "no process of the group is left")
        })
      )
    }
  }

  for (const target of targets) {
    it.effect(`npm start on the embedded database: SIGTERM to the ${target} stops node and PostgreSQL`, () =>
      Effect.gen(function* () {
        const dataDir = yield* Effect.acquireRelease(
          Effect.promise(() => mkdtemp(join(tmpdir(), "receivables-signals-"))),
          (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
        )
        // As root, the server runs as "postgres", which must be able to enter the directory.
        yield* Effect.promise(() => chmod(dataDir, 0o755))
        const port = yield* Effect.promise(freePort)
        const databasePort = yield* Effect.promise(freePort)
        const app = spawnCommand(
          "npm",
          ["start"],
          {
            DATABASE_URL: "",
            DATA_DIR: dataDir,
            PORT: String(port),
            HOST: "127.0.0.1",
            EMBEDDED_POSTGRES_PORT: String(databasePort),
            DEMO_SEED: "false"
          },
          { group: true }
        )
        yield* Effect.promise(() => healthy(`http://127.0.0.1:${port}`, app, 90_000))
        const { code, groupGone } = yield* Effect.promise(() => stop(app, target))
        assert.strictEqual(code, 0, app.output())
        assert.isTrue(groupGone, "no process of the group is left")
        assert.isTrue(yield* Effect.promise(() => portFree(port)), "the API's port is free")
        assert.isTrue(
          yield* Effect.promise(() => within(10_000, () => portFree(databasePort))),
          "the embedded PostgreSQL stopped"
        )
      }).pipe(Effect.scoped)
    )
  }
})
