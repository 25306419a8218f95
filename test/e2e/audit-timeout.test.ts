/**
 * The audit write is bounded: a database that stops answering (another connection holds the audit
 * table locked) no longer holds answered requests. Past `AUDIT_WRITE_TIMEOUT_SECONDS` the answer
 * leaves, and its entry, kept queued, is committed once the database answers again.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { eventually } from "../support/Eventually.ts"
import { insertFixture, keys } from "../support/Fixtures.ts"
import { lockTable } from "../support/TableLock.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const TestLayer = Layer.effectDiscard(insertFixture).pipe(
  Layer.provideMerge(serverLayer({ settings: { AUDIT_WRITE_TIMEOUT_SECONDS: "0.5" } })),
  Layer.provideMerge(TestDatabase.layer)
)

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("a hung audit write", (it) => {
  it.effect("answers past the timeout, and the entry is committed once the database answers again", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const base = yield* BaseUrl
      const unlock = yield* lockTable("audit_log")
      const answer = yield* Effect.promise(async () => {
        const response = await fetch(`${base}/v1/vendors`, { headers: { authorization: `Bearer ${keys.orgA}` } })
        return { status: response.status, requestId: response.headers.get("request-id"), body: await response.json() }
      })
      // Answered while the lock is still held: the write timed out, the answer did not wait.
      assert.strictEqual(answer.status, 200)
      assert.strictEqual((answer.body as { object: string }).object, "list")
      const [before] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks
        WHERE relation = 'audit_log'::regclass AND mode = 'AccessExclusiveLock' AND granted`
      assert.strictEqual(before!.n, 1, "the audit table was locked while the answer left")
      yield* unlock
      yield* eventually(
        "the entry committed after the lock",
        Effect.map(
          sql<{ status: number }>`SELECT status FROM audit_log WHERE request_id = ${answer.requestId!}`,
          (rows) => rows[0]?.status === 200
        )
      )
    })
  )

  it.effect("an entry whose write fails after the answer left is kept and committed once the database answers", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const base = yield* BaseUrl
      const unlock = yield* lockTable("audit_log")
      const answers = yield* Effect.promise(() =>
        Promise.all(
          Array.from({ length: 5 }, async () => {
            const response = await fetch(`${base}/v1/vendors`, { headers: { authorization: `Bearer ${keys.orgA}` } })
            await response.arrayBuffer()
            return { status: response.status, requestId: response.headers.get("request-id")! }
          })
        )
      )
      assert.deepStrictEqual(
        answers.map((answer) => answer.status),
        [200, 200, 200, 200, 200]
      )
      // The stall ends the way a stalled network does: the waiting write's connection is cut, so
      // the write fails instead of completing once the lock goes.
      const cut = yield* sql<{ pid: number }>`
        SELECT pg_terminate_backend(pid), pid FROM pg_locks
        WHERE relation = 'audit_log'::regclass AND NOT granted`
      assert.isAbove(cut.length, 0, "a write was waiting for the table")
      yield* unlock
      const ids = answers.map((answer) => answer.requestId)
      yield* eventually(
        "every answered entry committed after the stall",
        Effect.map(
          sql<{ request_id: string }>`SELECT request_id FROM audit_log WHERE request_id IN ${sql.in(ids)}`,
          (rows) => rows.length === ids.length
        )
      )
    })
  )
})
