/**
 * Once per test run: a PostgreSQL server (TEST_DATABASE_URL, or an embedded one on a free port
 * in a temporary directory) and a migrated template database. Each test file clones the template
 * into a database of its own (`test/support/TestDatabase.ts`), so files run in parallel.
 */
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Effect, Exit, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import type { TestProject } from "vitest/node"
import * as Embedded from "../../adapters/postgres/embedded/Embedded.ts"
import * as Migrations from "../../adapters/postgres/Migrations.ts"
import { freePort } from "./ports.ts"
import { databaseUrl } from "./urls.ts"

declare module "vitest" {
  export interface ProvidedContext {
    readonly adminDatabaseUrl: string
    readonly templateDatabase: string
  }
}

// Throw-away clusters need no durability; these settings roughly halve the suite's time.
const testSettings = { fsync: "off", synchronous_commit: "off", full_page_writes: "off", max_connections: "300" }

const admin = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })

export default async function setup(project: TestProject) {
  const scope = Effect.runSync(Scope.make())
  const baseDir = process.env.TEST_DATABASE_URL ? undefined : await mkdtemp(join(tmpdir(), "receivables-test-"))
  const adminUrl =
    process.env.TEST_DATABASE_URL ??
    (
      await Effect.runPromise(
        Embedded.start({ baseDir: baseDir!, port: await freePort(), settings: testSettings }).pipe(Scope.provide(scope))
      )
    ).url
  const template = `receivables_template_${randomBytes(4).toString("hex")}`

  await Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE DATABASE ${sql(template)}`
    }).pipe(Effect.provide(admin(adminUrl)))
  )
  await Effect.runPromise(Migrations.migrate.pipe(Effect.provide(admin(databaseUrl(adminUrl, template)))))

  project.provide("adminDatabaseUrl", adminUrl)
  project.provide("templateDatabase", template)

  return async () => {
    await Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`DROP DATABASE IF EXISTS ${sql(template)} WITH (FORCE)`
      }).pipe(Effect.provide(admin(adminUrl)), Effect.ignore)
    )
    await Effect.runPromise(Scope.close(scope, Exit.void))
    if (baseDir !== undefined) await rm(baseDir, { recursive: true, force: true })
  }
}
