/**
 * The audit log's promise with the real app process: after a burst and a graceful shutdown every
 * request has its entry, and when the process is killed (SIGKILL) under load, every request that
 * got an answer has its entry. Neither the process's output nor the log ever holds the key.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { type AppProcess, healthy, spawnApp } from "../support/AppProcess.ts"
import { freePort } from "../support/ports.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(7))

interface App extends AppProcess {
  readonly base: string
}

const startApp = (url: string) =>
  Effect.promise(async (): Promise<App> => {
    const port = await freePort()
    const app = spawnApp({ DATABASE_URL: url, PORT: String(port), HOST: "127.0.0.1" })
    const base = `http://127.0.0.1:${port}`
    await healthy(base, app)
    return { ...app, base }
  })

/** Sends a request; the request id of its answer, or none when the connection failed. */
const answered = (base: string) =>
  fetch(`${base}/v1/receivables?verified_since=all`, { headers: { authorization: `Bearer ${key}` } }).then(
    async (response) => {
      await response.arrayBuffer()
      return response.headers.get("request-id")
    },
    () => null
  )

const auditedAmong = (ids: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: bigint }>`SELECT count(DISTINCT request_id) AS n FROM audit_log WHERE request_id IN ${sql.in(ids)}`.pipe(
      Effect.map((rows) => Number(rows[0]!.n))
    )
  )

layer(TestDatabase.layer, { timeout: 120_000, excludeTestServices: true })("audit durability", (it) => {
  it.effect("every request of a burst has its entry after a graceful shutdown, and no key is logged", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const url = yield* TestDatabase.TestDatabaseUrl
      const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Durable') RETURNING id`
      yield* sql`INSERT INTO api_keys (org_id, key_hash, display_start)
        VALUES (${org!.id}, sha256(convert_to(${key}, 'UTF8')), 'pr_live_xxxx')`

      const app = yield* startApp(url)
      const ids = yield* Effect.promise(async () => {
        const all: Array<string | null> = []
        const workers = Array.from({ length: 25 }, async () => {
          for (let i = 0; i < 20; i++) all.push(await answered(app.base))
        })
        await Promise.all(workers)
        return all
      })
      app.child.kill("SIGTERM")
      assert.strictEqual(yield* Effect.promise(() => app.exited), 0)
      const got = ids.filter((id): id is string => id !== null)
      assert.strictEqual(got.length, 500)
      assert.strictEqual(yield* auditedAmong(got), 500)
      assert.notInclude(app.output(), key.slice(8))
    })
  )

  it.effect("killed under load, every answered request has its entry", () =>
    Effect.gen(function* () {
      const url = yield* TestDatabase.TestDatabaseUrl
      const app = yield* startApp(url)
      const ids = yield* Effect.promise(async () => {
        const all: Array<string | null> = []
        let running = true
        // Under load: the kill comes once 50 requests have their answers, with 20 clients still sending.
        let loaded: () => void = () => undefined
        const underLoad = new Promise<void>((resolve) => {
          loaded = resolve
        })
        let answers = 0
        const workers = Array.from({ length: 20 }, async () => {
          while (running) {
            const id = await answered(app.base)
            all.push(id)
            if (id !== null && ++answers === 50) loaded()
          }
        })
        const first = await Promise.race([underLoad.then(() => "loaded"), app.exited.then(() => "exited")])
        if (first === "exited") throw new Error(`the app exited before the kill: ${app.output()}`)
        app.child.kill("SIGKILL")
        running = false
        await Promise.all(workers)
        return all
      })
      yield* Effect.promise(() => app.exited)
      const got = ids.filter((id): id is string => id !== null)
      assert.isAbove(ids.length - got.length, 0, "some requests were cut off by the kill")
      assert.strictEqual(yield* auditedAmong(got), got.length)
      assert.notInclude(app.output(), key.slice(8))
    })
  )
})
