/**
 * Graceful shutdown under load: SIGTERM while 16 requests are in flight. Every one of them gets
 * its complete answer (no connection reset), every answered request has its audit entry, and the
 * process exits 0.
 */
import { spawn } from "node:child_process"
import http from "node:http"
import { join } from "node:path"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { freePort } from "../support/ports.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

const root = join(import.meta.dirname, "..", "..")
const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(21))

type Result = { readonly kind: "answered"; readonly requestId: string } | { readonly kind: "refused" | "reset" }

/** One request on a fresh connection; a refused connection means the server had stopped accepting. */
const request = (port: number) =>
  new Promise<Result>((resolve) => {
    const req = http.get(
      { host: "127.0.0.1", port, path: "/v1/vendors", agent: false, headers: { authorization: `Bearer ${key}` } },
      (response) => {
        response.resume()
        response.on("end", () => resolve({ kind: "answered", requestId: String(response.headers["request-id"]) }))
        response.on("error", () => resolve({ kind: "reset" }))
      }
    )
    req.on("error", (error: NodeJS.ErrnoException) =>
      resolve({ kind: error.code === "ECONNREFUSED" ? "refused" : "reset" })
    )
  })

/** A `serve` process on the test database with the key, once it answers. */
const started = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const url = yield* TestDatabase.TestDatabaseUrl
  yield* sql`INSERT INTO organizations (name) VALUES ('Shutdown') ON CONFLICT DO NOTHING`
  const [org] = yield* sql<{ id: string }>`SELECT id FROM organizations WHERE name = 'Shutdown' LIMIT 1`
  yield* sql`INSERT INTO api_keys (org_id, key_hash, display_start)
    VALUES (${org!.id}, sha256(convert_to(${key}, 'UTF8')), 'pr_live_shut') ON CONFLICT DO NOTHING`
  const port = yield* Effect.promise(freePort)
  const child = spawn(process.execPath, [join(root, "app", "main.ts"), "serve"], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: "127.0.0.1", DEMO_SEED: "false" },
    stdio: ["ignore", "ignore", "pipe"]
  })
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
  yield* Effect.promise(async () => {
    for (let i = 0; i < 200; i++) {
      if ((await request(port)).kind === "answered") return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })
  return { port, child, exited }
})

layer(TestDatabase.layer, { timeout: 120_000, excludeTestServices: true })("graceful shutdown", (it) => {
  it.effect("SIGTERM under load: no connection reset, no answered request missing from the audit log", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { port, child, exited } = yield* started
      const results = yield* Effect.promise(async () => {
        const all: Array<Result> = []
        let running = true
        const workers = Array.from({ length: 16 }, async () => {
          while (running) {
            const result = await request(port)
            all.push(result)
            if (result.kind === "refused") return
          }
        })
        // Under load, seen rather than assumed: the signal comes once more than 20 requests were
        // answered (however long a slow machine takes), with a request in flight on every client;
        // no client starts another.
        const answeredSoFar = () => all.filter((r) => r.kind === "answered").length
        for (let i = 0; i < 3000 && answeredSoFar() <= 20; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
        running = false
        child.kill("SIGTERM")
        await Promise.all(workers)
        await exited
        return all
      })
      assert.strictEqual(yield* Effect.promise(() => exited), 0)
      const answered = results.flatMap((r) => (r.kind === "answered" ? [r.requestId] : []))
      assert.isAbove(answered.length, 20)
      assert.deepStrictEqual(
        results.filter((r) => r.kind === "reset"),
        [],
        "no request was cut off"
      )
      const [row] = yield* sql<{ n: bigint }>`
        SELECT count(DISTINCT request_id) AS n FROM audit_log WHERE request_id IN ${sql.in(answered)}`
      assert.strictEqual(Number(row!.n), answered.length)
    })
  )
  it.effect(
    "a client keeping its connection alive is told to close it while the server drains, and is never reset",
    () =>
      Effect.gen(function* () {
        const { port, child, exited } = yield* started
        const outcome = yield* Effect.promise(async () => {
          const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
          const onKeptAlive = () =>
            new Promise<
              { readonly kind: "answered"; readonly connection: string } | { readonly kind: "refused" | "reset" }
            >((resolve) => {
              const req = http.get(
                { host: "127.0.0.1", port, path: "/v1/vendors", agent, headers: { authorization: `Bearer ${key}` } },
                (response) => {
                  response.resume()
                  response.on("end", () =>
                    resolve({ kind: "answered", connection: String(response.headers.connection ?? "") })
                  )
                  response.on("error", () => resolve({ kind: "reset" }))
                }
              )
              req.on("error", (error: NodeJS.ErrnoException) =>
                resolve({ kind: error.code === "ECONNREFUSED" ? "refused" : "reset" })
              )
            })
          const first = await onKeptAlive()
          child.kill("SIGTERM")
          // One request after another on the kept-alive connection until the listener refuses a new
          // one: bounded in count, and by the drain's own end.
          const seen = [first]
          for (let i = 0; i < 2_000; i++) {
            const next = await onKeptAlive()
            seen.push(next)
            if (next.kind !== "answered") break
          }
          agent.destroy()
          await exited
          return seen
        })
        assert.deepStrictEqual(
          outcome.filter((result) => result.kind === "reset"),
          [],
          "no request on a kept-alive connection was cut off"
        )
        assert.isTrue(
          outcome.some((result) => result.kind === "answered" && result.connection === "close"),
          "an answer during the drain said Connection: close"
        )
        assert.strictEqual(yield* Effect.promise(() => exited), 0)
      })
  )
})
