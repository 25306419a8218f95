import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Redacted } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import * as Database from "../../../adapters/postgres/Database.ts"
import * as Migrations from "../../../adapters/postgres/Migrations.ts"
import { backendPid, waitingForLock } from "../../support/LockWaits.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const tables = [
  "organizations",
  "api_keys",
  "vendors",
  "debtors",
  "integrations",
  "receivables",
  "receivable_history",
  "events",
  "sync_runs",
  "audit_log",
  "api_key_usage"
]

const rcv = (n: number) => `rcv_${n.toString(16).padStart(32, "0")}`

// An organization with one vendor, one debtor and their integration; returns their ids.
const seedPair = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Org') RETURNING id`
  const [vendor] = yield* sql<{ id: string }>`INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'V') RETURNING id`
  const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('D') RETURNING id`
  const [integration] = yield* sql<{ id: string }>`
    INSERT INTO integrations (org_id, vendor_id, debtor_id, connector)
    VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, 'simulator') RETURNING id`
  return { org: org!.id, vendor: vendor!.id, debtor: debtor!.id, integration: integration!.id }
})

const insertReceivable = (
  ids: { org: string; vendor: string; debtor: string; integration: string },
  overrides: Partial<{
    id: string
    vendor: string
    currency: string
    status: string
    key: string
    metadata: string
  }> = {}
) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
      INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents,
        currency, receivable_date, status, portal_status, metadata, detected_at, updated_at)
      VALUES (${ids.org}, ${overrides.id ?? rcv(1)}, ${ids.integration}, ${overrides.vendor ?? ids.vendor},
        ${ids.debtor}, ${overrides.key ?? "doc-1"}, 1000, ${overrides.currency ?? "EUR"}, '2026-01-01',
        ${overrides.status ?? "PENDING"}, 'Submitted', ${overrides.metadata ?? "{}"}::json, now(), now())`
  )

/** The SQLSTATE code PostgreSQL gave, wherever the driver's error sits in the causes. */
const sqlStateOf = (error: unknown): string | undefined => {
  for (let at: unknown = error; typeof at === "object" && at !== null; at = (at as { cause?: unknown }).cause) {
    if ("code" in at && typeof at.code === "string") return at.code
  }
  return undefined
}

/** The SQLSTATE code of the refusal of a statement expected to be refused. */
const refusal = (statement: Effect.Effect<unknown, unknown, SqlClient.SqlClient>) =>
  statement.pipe(Effect.flip, Effect.map(sqlStateOf))

layer(TestDatabase.layer, { excludeTestServices: true })("migrations", (it) => {
  it.effect("create every table of the data model", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ tablename: string }>`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`
      const present = new Set(rows.map((row) => row.tablename))
      for (const table of tables) assert.isTrue(present.has(table), table)
    })
  )

  it.effect("create the indexes the read and sync paths use", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ indexname: string }>`SELECT indexname FROM pg_indexes WHERE schemaname = 'public'`
      const present = new Set(rows.map((row) => row.indexname))
      for (const index of [
        "receivables_org_order_idx",
        "receivables_vendor_idx",
        "receivables_debtor_idx",
        "receivables_status_idx",
        "receivables_updated_idx",
        "receivable_history_receivable_idx",
        "integrations_due_idx"
      ]) {
        assert.isTrue(present.has(index), index)
      }
    })
  )

  it.effect("running them again applies nothing", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* Migrations.migrate, [])
    })
  )

  it.effect("a table a migration rewrites is vacuumed after it, so list pages keep their index-only scans", () =>
    Effect.gen(function* () {
      const { name, url } = yield* TestDatabase.createEmptyDatabase
      const connected = Effect.provide(Database.layerUrl(Redacted.make(url), { maxConnections: 1 }))
      // VACUUM marks a page all-visible only once the commits of its rows are flushed, which the
      // test server does lazily; here commits wait for their flush, as they do by default.
      yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`ALTER DATABASE ${sql(name)} SET synchronous_commit = on`
      ).pipe(connected)
      const beforeRewrite = Object.fromEntries(
        Object.entries(Migrations.migrations).filter(([name]) => Migrations.migrationId(name) < 6)
      )
      const allVisiblePages = Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.map(
          sql<{ pages: number; visible: number }>`
            SELECT relpages AS pages, relallvisible AS visible FROM pg_class WHERE relname = 'receivables'`,
          ([row]) => row!
        )
      )
      const at5 = yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* Migrator.make({})({ loader: Migrator.fromRecord(beforeRewrite), table: Migrations.migrationsTable })
        const ids = yield* seedPair
        yield* sql`
          INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents,
            currency, receivable_date, status, portal_status, detected_at, updated_at)
          SELECT ${ids.org}, 'rcv_' || lpad(to_hex(n), 32, '0'), ${ids.integration}, ${ids.vendor}, ${ids.debtor},
            'doc-' || n, 1000, 'EUR', '2026-01-01', 'PENDING', 'Submitted', now(), now()
          FROM generate_series(1, 2000) n`
        yield* sql`VACUUM receivables`
        return yield* allVisiblePages
      }).pipe(connected)
      assert.isAbove(at5.visible, 0)

      const { applied, after } = yield* Effect.gen(function* () {
        const applied = yield* Migrations.migrate
        return { applied, after: yield* allVisiblePages }
      }).pipe(connected)
      assert.deepStrictEqual(
        applied.map(([id]) => id),
        Object.keys(Migrations.migrations)
          .map(Migrations.migrationId)
          .filter((id) => id > 5)
      )
      assert.isAbove(after.pages, 0)
      assert.strictEqual(after.visible, after.pages)
    }).pipe(Effect.scoped)
  )

  it.effect("the schema refuses rows the domain forbids", () =>
    Effect.gen(function* () {
      const ids = yield* seedPair
      for (const id of ["rcv_XYZ", `rcv_${"a".repeat(31)}`, `rcv_${"a".repeat(33)}`, `rcv_${"A".repeat(32)}`]) {
        assert.strictEqual(yield* refusal(insertReceivable(ids, { id })), "23514", id)
      }
      assert.strictEqual(yield* refusal(insertReceivable(ids, { id: `rcv_${"a".repeat(31)}\n` })), "23514")
      assert.strictEqual(yield* refusal(insertReceivable(ids, { id: `xcv_${"a".repeat(32)}` })), "23514")
      assert.strictEqual(yield* refusal(insertReceivable(ids, { metadata: "[]" })), "23514")
      assert.strictEqual(yield* refusal(insertReceivable(ids, { metadata: "{" })), "22P02")
      assert.strictEqual(yield* refusal(insertReceivable(ids, { currency: "eur" })), "23514")
      assert.strictEqual(yield* refusal(insertReceivable(ids, { status: "Paid" })), "23514")
      // A receivable's vendor must be its integration's vendor.
      const other = yield* seedPair
      assert.strictEqual(yield* refusal(insertReceivable(ids, { vendor: other.vendor })), "23503")
      yield* insertReceivable(ids)
      // One receivable per portal document within a pair.
      assert.strictEqual(yield* refusal(insertReceivable(ids, { id: rcv(2) })), "23505")
      yield* insertReceivable(ids, { id: rcv(2), key: "doc-2" })
    })
  )

  it.effect("a receivable belongs to its integration's organization, vendor and debtor, for good", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const ids = yield* seedPair
      const other = yield* seedPair
      // Another organization's integration, or a debtor that is not the integration's.
      assert.strictEqual(yield* refusal(insertReceivable({ ...ids, integration: other.integration })), "23503")
      assert.strictEqual(yield* refusal(insertReceivable({ ...ids, debtor: other.debtor })), "23503")
      // One stray row among good ones refuses the whole statement.
      assert.strictEqual(
        yield* refusal(sql`
          INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents,
            currency, receivable_date, status, portal_status, detected_at, updated_at)
          VALUES (${ids.org}, ${rcv(10)}, ${ids.integration}, ${ids.vendor}, ${ids.debtor}, 'a', 1, 'EUR',
              '2026-01-01', 'PAID', 'Paid', now(), now()),
            (${ids.org}, ${rcv(11)}, ${ids.integration}, ${other.vendor}, ${ids.debtor}, 'b', 1, 'EUR',
              '2026-01-01', 'PAID', 'Paid', now(), now())`),
        "23503"
      )
      const [none] = yield* sql<{ n: bigint }>`SELECT count(*) AS n FROM receivables WHERE org_id = ${ids.org}`
      assert.strictEqual(Number(none!.n), 0)

      yield* insertReceivable(ids)
      // It never moves to another pair, though its own fields change.
      assert.strictEqual(
        yield* refusal(sql`UPDATE receivables SET vendor_id = ${other.vendor} WHERE id = ${rcv(1)}`),
        "23503"
      )
      yield* sql`UPDATE receivables SET status = 'PAID', vendor_id = vendor_id WHERE id = ${rcv(1)}`
      // Nor does its integration's pair; and an integration with receivables is never deleted.
      assert.strictEqual(
        yield* refusal(sql`UPDATE integrations SET debtor_id = ${other.debtor} WHERE id = ${ids.integration}`),
        "23503"
      )
      assert.strictEqual(yield* refusal(sql`DELETE FROM integrations WHERE id = ${ids.integration}`), "23503")
      yield* sql`DELETE FROM integrations WHERE id = ${other.integration}`
    })
  )

  it.effect("deleting an integration waits for a transaction writing its receivables, then refuses", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const ids = yield* seedPair
      // The writer's backend, once its receivable is inserted and its transaction still open.
      const inserted = yield* Deferred.make<number>()
      const release = yield* Deferred.make<void>()
      const writer = yield* sql
        .withTransaction(
          Effect.gen(function* () {
            yield* insertReceivable(ids)
            yield* Deferred.succeed(inserted, yield* backendPid)
            yield* Deferred.await(release)
          })
        )
        .pipe(Effect.forkChild)
      const writerPid = yield* Deferred.await(inserted)
      const deletion = yield* sql`DELETE FROM integrations WHERE id = ${ids.integration}`.pipe(
        Effect.flip,
        Effect.forkChild
      )
      // The deletion is blocked by the writer's lock on the pair, not refused before it commits.
      yield* waitingForLock("the deletion waiting for the writer's lock", { blockedBy: writerPid })
      assert.isUndefined(deletion.pollUnsafe())
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(writer)
      const error = yield* Fiber.join(deletion)
      assert.strictEqual(sqlStateOf(error), "23503")
    })
  )
})
