import { chmod, mkdtemp, rm, stat } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "../../../adapters/postgres/Database.ts"
import * as Embedded from "../../../adapters/postgres/embedded/Embedded.ts"
import { freePort } from "../../support/ports.ts"

const privateDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "receivables-embedded-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)
const tempDir = Effect.tap(privateDir, (dir) => Effect.promise(() => chmod(dir, 0o755)))

const query = <A extends object>(
  url: string,
  run: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>
) => Effect.flatMap(SqlClient.SqlClient, run).pipe(Effect.provide(Database.layerUrl(Redacted.make(url))), Effect.orDie)

describe("embedded PostgreSQL", () => {
  it.live("initialises once, then reuses the data directory on the next start", () =>
    Effect.gen(function* () {
      const baseDir = yield* tempDir
      const port = yield* Effect.promise(freePort)
      yield* Effect.scoped(
        Effect.gen(function* () {
          const server = yield* Embedded.start({ baseDir, port })
          yield* query(server.url, (sql) => sql`CREATE TABLE kept (value text)`)
          yield* query(server.url, (sql) => sql`INSERT INTO kept VALUES ('from the first start')`)
        })
      )
      const rows = yield* Effect.scoped(
        Effect.gen(function* () {
          const server = yield* Embedded.start({ baseDir, port })
          return yield* query<{ value: string }>(server.url, (sql) => sql`SELECT value FROM kept`)
        })
      )
      assert.deepStrictEqual(rows, [{ value: "from the first start" }])
    })
  )

  it.live("stops the server when its scope closes", () =>
    Effect.gen(function* () {
      const baseDir = yield* tempDir
      const port = yield* Effect.promise(freePort)
      const url = yield* Effect.scoped(Effect.map(Embedded.start({ baseDir, port }), (server) => server.url))
      const error = yield* Effect.flip(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(
          Effect.provide(Database.layerUrl(Redacted.make(url)))
        )
      )
      assert.strictEqual(error._tag, "DatabaseUnavailable")
      assert.match(error.message, /ECONNREFUSED/)
    })
  )

  it.live("says which port is taken when it cannot listen", () =>
    Effect.gen(function* () {
      const baseDir = yield* tempDir
      const port = yield* Effect.promise(freePort)
      const blocker = createServer().listen(port, "127.0.0.1")
      yield* Effect.addFinalizer(() => Effect.sync(() => blocker.close()))
      const error = yield* Effect.flip(Effect.scoped(Embedded.start({ baseDir, port })))
      assert.match(error.message, /could not bind IPv4 address "127\.0\.0\.1": Address already in use/)
      assert.notMatch(error.message, /\n/)
    })
  )

  it.live("never puts the generated password in its errors", () =>
    Effect.gen(function* () {
      assert.strictEqual(
        Database.describeUrl("postgres://app:s3cret@db.internal:5432/receivables"),
        "postgres://app@db.internal:5432/receivables"
      )
      const error = yield* Effect.flip(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(
          Effect.provide(Database.layerUrl(Redacted.make("postgres://app:s3cret@127.0.0.1:1/receivables")))
        )
      )
      assert.notInclude(error.message, "s3cret")
      assert.include(error.message, "postgres://app@127.0.0.1:1/receivables")
    })
  )

  it.live("keeps the cluster where the server user can reach it", () =>
    Effect.gen(function* () {
      const dir = yield* privateDir
      const baseDir = join(dir, "postgres")
      const port = yield* Effect.promise(freePort)
      const logs: Array<string> = []
      const logger = Logger.make<unknown, void>(({ message }) => {
        logs.push(String(message))
      })
      yield* Effect.scoped(Embedded.start({ baseDir, port })).pipe(Effect.provide(Logger.layer([logger])))
      if (process.getuid?.() === 0) {
        // As root the server runs as "postgres", which cannot enter a private (0700) directory.
        const relocated = /its data is kept in (\S+)/.exec(logs.join("\n"))?.[1]
        assert.isDefined(relocated, logs.join("\n"))
        assert.isTrue((yield* Effect.promise(() => stat(join(relocated!, "pgdata", "PG_VERSION")))).isFile())
        yield* Effect.promise(() => rm(relocated!, { recursive: true, force: true }))
      } else {
        assert.deepStrictEqual(logs, [])
        assert.isTrue((yield* Effect.promise(() => stat(join(baseDir, "pgdata", "PG_VERSION")))).isFile())
      }
    })
  )
})
