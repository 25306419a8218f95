/**
 * The audit log's retention against a real PostgreSQL: the log is kept in monthly partitions
 * with the coming months ready; entries can be neither changed nor removed one by one (on the
 * parent or on any partition); only whole partitions past the retention are dropped.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { maintainPartitions, monthsAhead } from "../../../adapters/postgres/PgAuditLog.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const partitions = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<{ name: string; upper: Date | null }>`
    SELECT c.relname AS name,
      substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \\(''([^'']+)''\\)')::timestamptz AS upper
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'audit_log'::regclass ORDER BY upper`
).pipe(Effect.orDie)

const refused = (statement: Effect.Effect<unknown, unknown>) =>
  Effect.map(Effect.exit(statement), (exit) => exit._tag === "Failure")

layer(TestDatabase.layer, { timeout: 60_000, excludeTestServices: true })("audit log retention", (it) => {
  it.effect(
    "the log is in monthly partitions, the coming months ready; no entry can be changed or removed one by one",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const parts = yield* partitions
        // The table the log was before partitions, and the months ahead.
        assert.strictEqual(parts.length, 1 + monthsAhead)
        const future = parts.at(-1)!.upper!.getTime() - Date.now()
        assert.isAbove(future, Duration.toMillis(Duration.days(28 * monthsAhead)))
        yield* sql`
        INSERT INTO audit_log (at, request_id, method, path, query, status, duration_ms)
        VALUES (now(), 'req_1', 'GET', '/v1/vendors', '', 200, 1)`
        const ahead = parts[1]!.name
        for (const statement of [
          sql`UPDATE audit_log SET status = 500`,
          sql`DELETE FROM audit_log`,
          sql`TRUNCATE audit_log`,
          sql`TRUNCATE ${sql(parts[0]!.name)}`,
          sql`TRUNCATE ${sql(ahead)}`,
          sql`DELETE FROM ${sql(parts[0]!.name)}`
        ]) {
          assert.isTrue(yield* refused(statement))
        }
        const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log`
        assert.strictEqual(count!.n, 1)
      })
  )

  it.effect("retention drops only whole partitions whose entries are all past it, with their entries", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // Nothing is 400 days old yet, and the months ahead exist: nothing to do.
      assert.deepStrictEqual(yield* maintainPartitions(Duration.days(400)), [])
      const before = yield* partitions
      // A retention reaching 35 days into the future stands for the passing of time.
      const dropped = yield* sql<{ partition: string; action: string }>`
        SELECT partition, action FROM audit_log_maintain(interval '-35 days', ${monthsAhead})`
      const cutoff = Date.now() + Duration.toMillis(Duration.days(35))
      const expected = before.filter((part) => part.upper!.getTime() <= cutoff).map((part) => part.name)
      assert.includeMembers(expected, [before[0]!.name])
      assert.deepStrictEqual(
        dropped.filter((change) => change.action === "dropped").map((change) => change.partition),
        expected
      )
      const after = yield* partitions
      assert.isTrue(after.every((part) => part.upper!.getTime() > cutoff))
      const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log`
      assert.strictEqual(count!.n, 0)
    })
  )
})
