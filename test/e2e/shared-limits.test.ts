/**
 * Limits across processes: two `serve` processes on one database, one key offered three times its
 * limit split evenly across both. With the limits in PostgreSQL (the default with `DATABASE_URL`)
 * the two together admit the key's limit; kept in each process (`LIMITS_STORE=memory`) each
 * admits it whole. The rate is slow enough that the burst alone is the limit while a case runs.
 * And a key's requests in flight are counted across both processes, each holding a leased share of
 * its budget; a process killed while answering holds its share until the lease ends.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { healthy, spawnApp } from "../support/AppProcess.ts"
import { eventually } from "../support/Eventually.ts"
import { freePort } from "../support/ports.ts"
import { lockTable } from "../support/TableLock.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

const burst = 60

/** A `serve` process on the database with the key's limit and no cap on requests in flight. */
const serve = (url: string, env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const port = await freePort()
      const app = spawnApp(
        {
          DATABASE_URL: url,
          PORT: String(port),
          HOST: "127.0.0.1",
          DEMO_SEED: "false",
          RATE_LIMIT_BURST: String(burst),
          RATE_LIMIT_PER_SECOND: "0.001",
          KEY_MAX_IN_FLIGHT: "10000",
          ORG_MAX_IN_FLIGHT: "10000",
          ...env
        },
        "serve"
      )
      const base = `http://127.0.0.1:${port}`
      await healthy(base, app)
      return { app, base }
    }),
    ({ app }) =>
      Effect.promise(() => {
        app.child.kill("SIGTERM")
        return app.exited
      })
  )

/** A key of a new organization, stored as the CLI stores one. */
const newKey = (fill: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(fill))
    const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Shared limits') RETURNING id`
    yield* sql`INSERT INTO api_keys (org_id, key_hash, display_start)
      VALUES (${org!.id}, sha256(convert_to(${key}, 'UTF8')), 'pr_live_shar')`
    return key
  })

const get = (base: string, key: string) =>
  fetch(`${base}/v1/receivables?limit=1`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => ({
    status: r.status,
    body: await r.text()
  }))

/** Once a process holds a share of one place of the key's budget in flight, as the database keeps them. */
const oneInFlight = (key: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* eventually(
      "one place of the key's in flight held",
      Effect.map(
        sql<{ n: number }>`SELECT coalesce(sum(s.share), 0)::int AS n FROM in_flight_shares s
          JOIN api_keys k ON k.org_id = s.org_id AND k.id = s.owner
          WHERE k.key_hash = sha256(convert_to(${key}, 'UTF8'))`,
        ([row]) => row!.n === 1
      )
    )
  })

/** `count` requests with the key to `base`, eight at a time; the statuses. */
const offer = (base: string, key: string, count: number) =>
  Effect.forEach(
    Array.from({ length: count }),
    () => Effect.promise(() => get(base, key).then((answer) => answer.status)),
    { concurrency: 8 }
  )

const admittedAcross = (env: Record<string, string>, fill: number) =>
  Effect.gen(function* () {
    const url = yield* TestDatabase.TestDatabaseUrl
    const key = yield* newKey(fill)
    const [one, two] = yield* Effect.all([serve(url, env), serve(url, env)], { concurrency: 2 })
    const statuses = (yield* Effect.all([offer(one.base, key, burst * 1.5), offer(two.base, key, burst * 1.5)], {
      concurrency: 2
    })).flat()
    assert.deepStrictEqual([...new Set(statuses)].sort(), [200, 429], "every request is admitted or refused")
    return statuses.filter((status) => status === 200).length
  })

layer(TestDatabase.layer, { timeout: 120_000, excludeTestServices: true })("limits across processes", (it) => {
  it.effect("with the limits in PostgreSQL, two processes together admit one key's limit, within 5%", () =>
    Effect.gen(function* () {
      const admitted = yield* admittedAcross({}, 21)
      assert.closeTo(admitted, burst, burst * 0.05)
    })
  )

  it.effect("with LIMITS_STORE=memory, each process admits the key's limit whole", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* admittedAcross({ LIMITS_STORE: "memory" }, 22), burst * 2)
    })
  )

  it.effect("a key's request in flight in one process holds its place in the other", () =>
    Effect.gen(function* () {
      const url = yield* TestDatabase.TestDatabaseUrl
      const key = yield* newKey(23)
      const caps = { KEY_MAX_IN_FLIGHT: "1", ORG_MAX_IN_FLIGHT: "8" }
      const [one, two] = yield* Effect.all([serve(url, caps), serve(url, caps)], { concurrency: 2 })
      const unlock = yield* lockTable("receivables")
      const waiting = yield* Effect.forkChild(Effect.promise(() => get(one.base, key)))
      yield* oneInFlight(key)
      const refused = yield* Effect.promise(() => get(two.base, key))
      assert.strictEqual(refused.status, 429)
      assert.include(refused.body, "with this key are being answered at once")
      yield* unlock
      assert.strictEqual((yield* Fiber.join(waiting)).status, 200)
      // The first process's share of the place returns once idle, within two heartbeats (2 s).
      yield* eventually(
        "the key served by the other process",
        Effect.map(
          Effect.promise(() => get(two.base, key)),
          (answer) => answer.status === 200
        ),
        { attempts: 40, interval: Duration.millis(100) }
      )
    })
  )

  it.effect("a process killed while answering holds its key's place only until the lease ends", () =>
    Effect.gen(function* () {
      const url = yield* TestDatabase.TestDatabaseUrl
      const key = yield* newKey(24)
      // Its share's lease is 5 s: the dead process's place is free within about 5 s.
      const caps = { KEY_MAX_IN_FLIGHT: "1", RATE_LIMIT_BURST: "100000" }
      const [one, two] = yield* Effect.all([serve(url, caps), serve(url, caps)], { concurrency: 2 })
      const unlock = yield* lockTable("receivables")
      yield* Effect.forkChild(Effect.promise(() => get(one.base, key).catch(() => undefined)))
      yield* oneInFlight(key)
      one.app.child.kill("SIGKILL")
      yield* Effect.promise(() => one.app.exited)
      yield* unlock
      assert.strictEqual((yield* Effect.promise(() => get(two.base, key))).status, 429, "held by the dead process")
      yield* eventually(
        "the key served again once the dead process's lease ended",
        Effect.map(
          Effect.promise(() => get(two.base, key)),
          (answer) => answer.status === 200
        ),
        { attempts: 60, interval: Duration.millis(250) }
      )
    })
  )
})
