/**
 * A database outage under load, as an operator meets it: the app process on a PostgreSQL of the
 * test's own, stopped (a fast shutdown: `57P01 admin_shutdown` to every session) and started again,
 * or behind a PgBouncer killed and started again on its address, while clients of the API, the
 * webhook routes and the dashboard keep sending requests over HTTP.
 * Every answer is a success or 503 in the documented shape with `Retry-After`, from the first
 * moment of the outage to its last (never 500, never a 429 that the outage caused: the per-key cap
 * of requests in flight is at its default, so places left taken by the outage would show), and
 * every client is answered again within 5 s of the database being back.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "../../adapters/postgres/Database.ts"
import * as Embedded from "../../adapters/postgres/embedded/Embedded.ts"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import { healthy, spawnApp } from "../support/AppProcess.ts"
import { eventually } from "../support/Eventually.ts"
import * as PgBouncer from "../support/PgBouncer.ts"
import { freePort } from "../support/ports.ts"
import { lockTable } from "../support/TableLock.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

const apiKey = makeApiKey("pr", new Uint8Array(secretBytes).fill(3))
const webhooksKey = makeApiKey("pr", new Uint8Array(secretBytes).fill(4))
// Shaped like a session token, so that the dashboard looks it up in the database.
const sessionCookie = `pr_session=${"A".repeat(43)}`

/** The most a client may wait, once the database is back, for a request to succeed. */
const recoveryBoundMs = 5_000

interface Answer {
  readonly client: string
  readonly startedAt: number
  readonly endedAt: number
  readonly status: number
  readonly retryAfter: string | null
  readonly body: string
}

interface Client {
  readonly name: string
  readonly send: (base: string) => Promise<Response>
  /** Whether `answer` is the documented 503 for this client (the API's JSON body, or the dashboard's page). */
  readonly documented503: (answer: Answer) => boolean
}

const apiError = (answer: Answer) => {
  try {
    const body = JSON.parse(answer.body) as { error?: { type?: string; code?: string } }
    return body.error?.type === "api_error" && body.error.code === "service_unavailable"
  } catch {
    return false
  }
}

const clients: ReadonlyArray<Client> = [
  {
    name: "api",
    send: (base) =>
      fetch(`${base}/v1/receivables?verified_since=all`, { headers: { authorization: `Bearer ${apiKey}` } }),
    documented503: apiError
  },
  {
    name: "webhooks",
    send: (base) => fetch(`${base}/v1/webhook_endpoints`, { headers: { authorization: `Bearer ${webhooksKey}` } }),
    documented503: apiError
  },
  {
    name: "dashboard",
    send: (base) => fetch(`${base}/dashboard/receivables`, { headers: { cookie: sessionCookie }, redirect: "manual" }),
    documented503: (answer) => /unavailable/i.test(answer.body) && !answer.body.startsWith("{")
  }
]

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "receivables-outage-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

/** A PostgreSQL server in `baseDir` that the test stops and starts at will. */
const controlledServer = (baseDir: string, port: number) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const server = yield* Embedded.start({ baseDir, port, settings: { fsync: "off" } }).pipe(
      Scope.provide(scope),
      Effect.orDie
    )
    return { url: server.url, stop: Scope.close(scope, Exit.void) }
  })

/** PgBouncer in front of the server of `url`, on `port`, that the test stops and starts at will. */
const controlledPooler = (url: string, port: number) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const bouncer = yield* PgBouncer.start(url, { port }).pipe(Scope.provide(scope))
    return { pooled: bouncer.pooled(url), stop: Scope.close(scope, Exit.void) }
  })

const onDatabase = (url: string, run: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, run).pipe(
    Effect.provide(Database.layerUrl(Redacted.make(url), { maxConnections: 1 })),
    Effect.orDie
  )

/** Resolves once `condition` holds, checking as answers arrive; rejects with `what` after `ms`. */
const until = (condition: () => boolean, ms: number, what: string, notify: Set<() => void>, describe: () => string) =>
  new Promise<void>((resolve, reject) => {
    if (condition()) return resolve()
    const timer = setTimeout(() => {
      notify.delete(check)
      reject(new Error(`${what} within ${ms} ms (${describe()})`))
    }, ms)
    const check = () => {
      if (!condition()) return
      clearTimeout(timer)
      notify.delete(check)
      resolve()
    }
    notify.add(check)
  })

/** What an outage is made of: the app's database settings, and how the database goes and comes back. */
interface Outage {
  readonly env: Record<string, string>
  /** The database itself, for the test's own statements. */
  readonly url: string
  /**
   * Whether requests are caught in the middle of their work (a lock they wait on) when it goes,
   * each holding its place among its key's requests in flight.
   */
  readonly cutOff: boolean
  /**
   * Requests of each client at once: under the per-key cap of requests in flight (4), so that no
   * 429 is earned; 3 is over it with the places of two requests that the outage cut off, if they
   * stayed taken.
   */
  readonly workersPerClient: number
  readonly stop: Effect.Effect<void>
  /** Brings it back, for the rest of the test's scope. */
  readonly start: Effect.Effect<void, never, Scope.Scope>
}

/**
 * The app under load over HTTP while `outage` stops the database and starts it again: every
 * answer is a success or the documented 503 with `Retry-After`, and every client is served again
 * within `recoveryBoundMs` of the return.
 */
const underLoad = (dir: string, outage: Outage) =>
  Effect.gen(function* () {
    const port = yield* Effect.promise(freePort)
    const app = spawnApp(
      {
        ...outage.env,
        DATA_DIR: join(dir, "data"),
        PORT: String(port),
        HOST: "127.0.0.1",
        // The rate limits out of the way: any 429 here would be the outage's own.
        RATE_LIMIT_PER_SECOND: "100000",
        RATE_LIMIT_BURST: "100000",
        ORG_RATE_LIMIT_PER_SECOND: "100000",
        ORG_RATE_LIMIT_BURST: "100000",
        UNAUTHENTICATED_RATE_LIMIT_PER_SECOND: "100000",
        UNAUTHENTICATED_RATE_LIMIT_BURST: "100000"
      },
      "serve"
    )
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        if (app.child.exitCode === null) app.child.kill("SIGKILL")
        await app.exited
      })
    )
    const base = `http://127.0.0.1:${port}`
    yield* Effect.promise(() => healthy(base, app, 60_000))
    yield* onDatabase(outage.url, (sql) =>
      Effect.gen(function* () {
        const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Outage') RETURNING id`
        for (const [key, permissions] of [
          [apiKey, "{}"],
          [webhooksKey, "{webhooks}"]
        ] as const) {
          yield* sql`INSERT INTO api_keys (org_id, key_hash, display_start, permissions)
              VALUES (${org!.id}, sha256(convert_to(${key}, 'UTF8')), 'pr_live_xxxx', ${permissions}::text[])`
        }
      })
    )

    const answers: Array<Answer> = []
    const failures: Array<string> = []
    const notify = new Set<() => void>()
    let running = true
    const worker = async (client: Client) => {
      // Bounded in count as well as by the phases below.
      for (let sent = 0; running && sent < 20_000; sent++) {
        const startedAt = Date.now()
        try {
          const response = await client.send(base)
          const body = await response.text()
          answers.push({
            client: client.name,
            startedAt,
            endedAt: Date.now(),
            status: response.status,
            retryAfter: response.headers.get("retry-after"),
            body
          })
        } catch (error) {
          failures.push(`${client.name}: ${String(error)}`)
        }
        for (const check of [...notify]) check()
      }
    }
    const load = Promise.all(
      clients.flatMap((client) => Array.from({ length: outage.workersPerClient }, () => worker(client)))
    )
    const ok = (answer: Answer) => answer.status < 400
    const each = (test: (client: string) => boolean) => clients.every((client) => test(client.name))
    const countOf = (client: string, test: (answer: Answer) => boolean) =>
      answers.filter((answer) => answer.client === client && test(answer)).length

    // What each client got, for a failure's message.
    const summary = () =>
      clients
        .map((c) => {
          const got = answers.filter((a) => a.client === c.name)
          const last = got.at(-1)
          return `${c.name}: ${got.length} answers, last ${last?.status} ${last?.body.slice(0, 100)}`
        })
        .join("; ")
    yield* Effect.promise(() =>
      until(() => each((c) => countOf(c, ok) >= 3), 15_000, "every client answered before the outage", notify, summary)
    )
    if (outage.cutOff) {
      // The outage cuts off requests in the middle of their work: the API's wait on a lock
      // when it comes, each holding its place among its key's requests in flight.
      const lockScope = yield* Scope.make()
      const lockHolder = yield* Layer.buildWithScope(
        Database.layerUrl(Redacted.make(outage.url), { maxConnections: 2 }),
        lockScope
      )
      const unlock = yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const unlock = yield* lockTable("receivables")
        yield* eventually(
          "every request of the API's client waiting on the lock",
          Effect.map(
            sql<{ waiting: number }>`SELECT count(*)::int AS waiting FROM pg_stat_activity
                WHERE wait_event_type = 'Lock' AND backend_type = 'client backend'`,
            ([row]) => row!.waiting >= outage.workersPerClient
          )
        )
        return unlock
      }).pipe(Effect.provide(lockHolder), Effect.orDie)
      yield* outage.stop
      // The lock's transaction ended with its server; its commit fails, and its pool closes.
      yield* Effect.ignore(unlock)
      yield* Scope.close(lockScope, Exit.void)
    } else {
      yield* outage.stop
    }
    const stoppedAt = Date.now()
    const ready = yield* Effect.promise(async () => {
      const response = await fetch(`${base}/ready`)
      return [response.status, response.headers.get("retry-after"), await response.json()]
    })
    yield* Effect.promise(() =>
      until(
        () => each((c) => countOf(c, (a) => a.startedAt > stoppedAt && !ok(a)) >= 3),
        10_000,
        "every client refused during the outage",
        notify,
        summary
      )
    )
    yield* outage.start
    const backAt = Date.now()
    const recovered = yield* Effect.promise(() =>
      until(
        // Recovered, and then a run of answers after it, where places left taken would refuse.
        () => each((c) => countOf(c, (a) => a.startedAt >= backAt && ok(a)) >= 10),
        20_000,
        "every client served again after the database's return",
        notify,
        summary
      ).then(
        () => true,
        () => false
      )
    )
    running = false
    yield* Effect.promise(() => load)

    const wrong = answers
      .filter((answer) => {
        if (ok(answer)) return false
        const client = clients.find((c) => c.name === answer.client)!
        return !(answer.status === 503 && answer.retryAfter !== null && client.documented503(answer))
      })
      .map(
        (answer) =>
          `${answer.client} ${answer.status} retry-after=${answer.retryAfter} ${answer.body.replace(/req_\w+/g, "req_…").slice(0, 160)}`
      )
    assert.deepStrictEqual(
      [...new Set(wrong)],
      [],
      `answers other than success or 503 with Retry-After:\n${app.output().slice(-3000)}`
    )
    assert.deepStrictEqual(failures, [])
    assert.deepStrictEqual(ready, [503, "2", { status: "not ready", reason: "the database does not answer" }])
    assert.isTrue(recovered, "every client was served again after the database's return")
    for (const client of clients) {
      const firstSuccess = answers.find((a) => a.client === client.name && a.startedAt >= backAt && ok(a))!
      assert.isAtMost(firstSuccess.endedAt - backAt, recoveryBoundMs, `${client.name} served again in time`)
    }
  })

describe("a database outage under load", () => {
  it.live(
    "the server stopped and started: 503 with Retry-After throughout, served again within 5 s of its return",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* tempDir
          const pgPort = yield* Effect.promise(freePort)
          const baseDir = join(dir, "postgres")
          const first = yield* controlledServer(baseDir, pgPort)
          yield* underLoad(dir, {
            env: { DATABASE_URL: first.url },
            url: first.url,
            cutOff: true,
            workersPerClient: 3,
            stop: first.stop,
            start: Effect.flatMap(controlledServer(baseDir, pgPort), (restarted) =>
              Effect.addFinalizer(() => restarted.stop)
            )
          })
        })
      ),
    { timeout: 90_000 }
  )

  it.live(
    "the pooler restarted: 503 with Retry-After throughout, served again within 5 s of its return",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* tempDir
          const { url } = yield* TestDatabase.createDatabase
          const port = yield* Effect.promise(freePort)
          const first = yield* controlledPooler(url, port)
          yield* underLoad(dir, {
            env: {
              DATABASE_URL: first.pooled,
              DATABASE_DIRECT_URL: url,
              DATABASE_PREPARED_STATEMENTS: "false"
            },
            url,
            cutOff: false,
            // Two: a request whose admission the pooler's end answered no more leaves its place to
            // its lease (its row's id never reached the process), and two such are no 429 here.
            workersPerClient: 2,
            stop: first.stop,
            start: Effect.flatMap(controlledPooler(url, port), (restarted) => Effect.addFinalizer(() => restarted.stop))
          })
        })
      ),
    { timeout: 90_000 }
  )
})
