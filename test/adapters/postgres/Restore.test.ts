/**
 * A restored backup cannot make a consumer skip (issue 44): the original keeps making events after
 * its `pg_dump`, a consumer follows it to the end, and the dump is restored into a new database
 * that then makes events of its own, more than the original made after the dump. Before, the
 * copy gave those events the sequences the original had given, and the consumer's cursor answered
 * a page past them: the copy's first events were skipped without a word. Now the copy's first
 * start opens a new incarnation: every cursor the original gave past the copy's newest sequence
 * is answered `cursor_expired` over HTTP, while cursors the copy holds too go on, a fresh full
 * load follows the feed, and a webhook endpoint's fan-out steps over the gap, delivering each of
 * the copy's events once.
 *
 * `pg_dump` must be as new as the server, and the npm package's server comes without client
 * tools, so the test runs Debian's PostgreSQL (`postgresql`), its server and its `pg_dump`
 * alike. A restore that nothing tells (a copy of the files) is declared with the CLI, against the
 * test database. What tells a copy from the original is a property of the identities compared.
 */
import { execFile } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import * as Database from "../../../adapters/postgres/Database.ts"
import * as Embedded from "../../../adapters/postgres/embedded/Embedded.ts"
import { restoreGap, sameDatabase } from "../../../adapters/postgres/Incarnation.ts"
import * as Migrations from "../../../adapters/postgres/Migrations.ts"
import * as PgPairStore from "../../../adapters/postgres/PgPairStore.ts"
import { WebhooksLive } from "../../../app/Layers.ts"
import type { OrgId } from "../../../core/shared/domain/Ids.ts"
import { WebhookDelivery } from "../../../core/webhooks/services/WebhookDelivery.ts"
import { WebhookEndpoints } from "../../../core/webhooks/services/WebhookEndpoints.ts"
import { jsonOf, runCli } from "../../support/Cli.ts"
import { insertFixture, keys } from "../../support/Fixtures.ts"
import { freePort } from "../../support/ports.ts"
import { document, makeScriptedSync } from "../../support/ScriptedSync.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../../support/TestServer.ts"
import { databaseUrl } from "../../support/urls.ts"

const run = promisify(execFile)

/** Debian's newest PostgreSQL: its server, and the `pg_dump` that can dump it. */
const debianPostgres = () => {
  const root = "/usr/lib/postgresql"
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(join(root, version, "bin", "pg_dump")))
        .sort((a, b) => Number(b) - Number(a))
    : []
  if (versions[0] === undefined) {
    throw new Error("this test needs Debian's PostgreSQL server and client tools: apt-get install postgresql")
  }
  return join(root, versions[0], "bin")
}

const webhookSettings = {
  WEBHOOK_ALLOWED_HOSTS: "127.0.0.1:1-65535",
  WEBHOOK_SECRET_KEYS: `1:${Buffer.alloc(32, 7).toString("base64")}`
}

/** One start of the service on `url`: migrations and the incarnation's check, then its API and stores. */
const startOn = (url: string) =>
  Layer.mergeAll(
    serverLayer({ settings: webhookSettings }),
    PgPairStore.layer,
    WebhooksLive.pipe(
      Layer.provide(ConfigProvider.layerAdd(ConfigProvider.fromUnknown(webhookSettings), { asPrimary: true }))
    )
  ).pipe(
    Layer.provideMerge(
      Migrations.layer.pipe(Layer.provideMerge(Database.layerUrl(Redacted.make(url), { maxConnections: 4 })))
    )
  )

const events = (after: number) =>
  Effect.gen(function* () {
    const base = yield* BaseUrl
    const response = yield* Effect.promise(() =>
      fetch(`${base}/v1/events?after=${after}&limit=500`, { headers: { authorization: `Bearer ${keys.orgA}` } })
    )
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field
    const body: any = yield* Effect.promise(() => response.json())
    return { status: response.status, body }
  })

const sequencesOf = (body: { data: ReadonlyArray<{ sequence: number }> }) => body.data.map((e) => e.sequence)

const documents = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => document(`${prefix}${i}`, "Submitted"))

const deliveredSequences = (endpoint: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ sequence: string }>`
      SELECT sequence::text AS sequence FROM webhook_deliveries WHERE endpoint_id = ${endpoint} ORDER BY webhook_deliveries.sequence`.pipe(
      Effect.map((rows) => rows.map((row) => Number(row.sequence))),
      Effect.orDie
    )
  )

const cursorOf = (endpoint: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ cursor: string }>`SELECT cursor::text AS cursor FROM webhook_endpoints WHERE id = ${endpoint}`.pipe(
      Effect.map((rows) => Number(rows[0]!.cursor)),
      Effect.orDie
    )
  )

describe("a restored database", () => {
  it.effect(
    "answers cursor_expired to every cursor the original gave past the copy, and no consumer or endpoint skips",
    () =>
      Effect.gen(function* () {
        const bin = debianPostgres()
        const baseDir = yield* Effect.acquireRelease(
          Effect.promise(() => mkdtemp(join(tmpdir(), "receivables-restore-"))),
          (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
        )
        const server = yield* Embedded.start({
          baseDir,
          port: yield* Effect.promise(freePort),
          settings: { fsync: "off", synchronous_commit: "off", full_page_writes: "off" },
          binaries: { initdb: join(bin, "initdb"), postgres: join(bin, "postgres") }
        }).pipe(Effect.orDie)
        const admin = (statement: string) =>
          Effect.promise(() => run(join(bin, "psql"), [server.url, "-Atqc", statement]))
        const original = databaseUrl(server.url, "original")
        const restored = databaseUrl(server.url, "restored")
        const dump = join(baseDir, "original.dump")
        yield* admin("CREATE DATABASE original")

        // The original: events of both organizations, each one's endpoint fanned out to.
        const before = yield* Effect.gen(function* () {
          const fixture = yield* insertFixture
          const endpoints = yield* WebhookEndpoints
          const made = (org: string) =>
            Effect.map(
              endpoints.create(org as OrgId, { url: "http://127.0.0.1:9/receive" }),
              (created): string => created.endpoint.id
            ).pipe(Effect.orDie)
          const endpointA = yield* made(fixture.orgA)
          const endpointB = yield* made(fixture.orgB)
          yield* makeScriptedSync(0x5e0000)(fixture.orgA, documents("a", 5))
          yield* makeScriptedSync(0x5e1000)(fixture.orgB, documents("b", 2))
          yield* (yield* WebhookDelivery).fanOut
          const page = yield* events(0)
          assert.deepStrictEqual(sequencesOf(page.body), [1, 2, 3, 4, 5])
          assert.deepStrictEqual(yield* deliveredSequences(endpointA), [1, 2, 3, 4, 5])
          return { orgA: fixture.orgA, endpointA, endpointB, last: page.body.latest_sequence as number }
        }).pipe(Effect.provide(startOn(original)))

        yield* Effect.promise(() => run(join(bin, "pg_dump"), ["--format=custom", "--file", dump, original]))

        // After the dump the original goes on (a second start of it opens no incarnation); a
        // consumer follows it to its end.
        const held = yield* Effect.gen(function* () {
          yield* makeScriptedSync(0x5e2000)(before.orgA, documents("c", 4))
          const page = yield* events(before.last)
          assert.deepStrictEqual(sequencesOf(page.body), [6, 7, 8, 9])
          return page.body.latest_sequence as number
        }).pipe(Effect.provide(startOn(original)))

        yield* admin("CREATE DATABASE restored")
        yield* Effect.promise(() => run(join(bin, "pg_restore"), ["--dbname", restored, dump]))

        // The copy starts, and makes more events than the original made after the dump.
        yield* Effect.gen(function* () {
          const start = yield* events(0)
          assert.deepStrictEqual(sequencesOf(start.body), [1, 2, 3, 4, 5])
          // A full load starting now notes this, and follows the feed from it.
          const noted = start.body.latest_sequence as number
          assert.strictEqual(noted, before.last + restoreGap)
          yield* makeScriptedSync(0x5e3000)(before.orgA, documents("d", 7))
          const made = Array.from({ length: 7 }, (_, i) => noted + 1 + i)

          // Every cursor the original gave past the copy's newest: told to reload, never a page.
          for (const cursor of [held, held - 1, before.last + 1]) {
            const answer = yield* events(cursor)
            assert.strictEqual(answer.status, 400, `after=${cursor}`)
            assert.strictEqual(answer.body.error.type, "invalid_request_error")
            assert.strictEqual(answer.body.error.code, "cursor_expired")
            assert.strictEqual(answer.body.error.param, "after")
            assert.match(answer.body.error.message, /restored/)
          }
          // A cursor the copy holds too (the same events up to it) goes on, skipping nothing.
          const fromBefore = yield* events(3)
          assert.deepStrictEqual(sequencesOf(fromBefore.body), [4, 5, ...made])
          const followed = yield* events(noted)
          assert.deepStrictEqual(sequencesOf(followed.body), made)
          assert.strictEqual(followed.body.latest_sequence, made.at(-1))

          // The endpoints' fan-out steps over the gap: each of the copy's events once, and an
          // organization with no new event no longer behind.
          yield* (yield* WebhookDelivery).fanOut
          assert.deepStrictEqual(yield* deliveredSequences(before.endpointA), [1, 2, 3, 4, 5, ...made])
          assert.strictEqual(yield* cursorOf(before.endpointA), made.at(-1))
          assert.deepStrictEqual(yield* deliveredSequences(before.endpointB), [1, 2])
          assert.strictEqual(yield* cursorOf(before.endpointB), 2 + restoreGap)
          // A cursor inside the gap (a build without the gap fanned out after the restore) goes on
          // after it, not again from the oldest event kept.
          const sql = yield* SqlClient.SqlClient
          yield* sql`UPDATE webhook_endpoints SET cursor = 3 WHERE id = ${before.endpointB}`
          yield* (yield* WebhookDelivery).fanOut
          assert.deepStrictEqual(yield* deliveredSequences(before.endpointB), [1, 2])
          assert.strictEqual(yield* cursorOf(before.endpointB), 2 + restoreGap)
        }).pipe(Effect.provide(startOn(restored)))
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.effect("declared by the operator where nothing tells it, opens a new incarnation all the same", () =>
    Effect.gen(function* () {
      const fixture = yield* insertFixture
      yield* makeScriptedSync(0x5e4000)(fixture.orgA, documents("e", 3))
      // A copy of the files, started as they were: nothing tells it from the original, so a cursor
      // the original gave past it would be a position this feed has not reached yet.
      assert.strictEqual((yield* events(5)).body.error.code, "parameter_invalid")
      const declared = jsonOf<{ incarnation: number; organizations: number; gap: number }>(
        yield* runCli(["database", "restored", "--json"])
      )
      assert.deepStrictEqual(declared, { incarnation: 2, organizations: 2, gap: restoreGap })
      const expired = yield* events(5)
      assert.strictEqual(expired.status, 400)
      assert.strictEqual(expired.body.error.code, "cursor_expired")
      const kept = yield* events(1)
      assert.deepStrictEqual([sequencesOf(kept.body), kept.body.latest_sequence], [[2, 3], 3 + restoreGap])
      yield* makeScriptedSync(0x5e5000)(fixture.orgA, documents("f", 1))
      assert.deepStrictEqual(sequencesOf((yield* events(3 + restoreGap)).body), [4 + restoreGap])
    }).pipe(
      Effect.provide(Layer.mergeAll(serverLayer(), PgPairStore.layer).pipe(Layer.provideMerge(TestDatabase.layer)))
    )
  )

  it("is told by any change of the database's oid or timeline, or of a system identifier both sides read", () => {
    const identity = fc.record({
      systemIdentifier: fc.option(fc.bigInt({ min: 1n, max: 2n ** 64n - 1n }).map(String), { nil: null }),
      databaseOid: fc.integer({ min: 1, max: 2 ** 32 - 1 }).map(String),
      timeline: fc.integer({ min: 1, max: 2 ** 31 - 1 })
    })
    fc.assert(
      fc.property(identity, identity, (a, b) => {
        assert.isTrue(sameDatabase(a, a))
        // Another database, server or timeline: a copy, whatever the rest says.
        assert.isFalse(
          sameDatabase(a, { ...a, databaseOid: b.databaseOid === a.databaseOid ? `${a.databaseOid}0` : b.databaseOid })
        )
        assert.isFalse(sameDatabase(a, { ...a, timeline: b.timeline === a.timeline ? a.timeline + 1 : b.timeline }))
        if (a.systemIdentifier !== null && b.systemIdentifier !== null && a.systemIdentifier !== b.systemIdentifier) {
          assert.isFalse(sameDatabase(a, { ...a, systemIdentifier: b.systemIdentifier }))
        }
        // An identifier the role could not read on one side is not held against the other.
        assert.isTrue(sameDatabase(a, { ...a, systemIdentifier: null }))
        assert.isTrue(sameDatabase({ ...a, systemIdentifier: null }, { ...a, systemIdentifier: b.systemIdentifier }))
      })
    )
  })
})
