/**
 * Entries of concurrent answers are committed in groups (`PgAuditLog`), and still no answer leaves
 * before its own entry is committed: with the audit table locked (within the write timeout), a
 * burst of requests waits, none answered, while the writer's insert waits for the lock; once it is
 * released every answer leaves, each with exactly one entry under its `Request-Id`.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { insertFixture, keys } from "../support/Fixtures.ts"
import { waitingForLock } from "../support/LockWaits.ts"
import { lockTable } from "../support/TableLock.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const TestLayer = Layer.effectDiscard(insertFixture).pipe(
  // Far above the test's wait for the lock, so that only a commit can let an answer leave.
  Layer.provideMerge(serverLayer({ settings: { AUDIT_WRITE_TIMEOUT_SECONDS: "60" } })),
  Layer.provideMerge(TestDatabase.layer)
)

const burst = 12

layer(TestLayer, { timeout: 90_000, excludeTestServices: true })("audit entries committed in groups", (it) => {
  it.effect("no answer leaves before its entry commits, and every entry is written once", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const base = yield* BaseUrl
      const unlock = yield* lockTable("audit_log")
      let answered = 0
      const requests = yield* Effect.forkChild(
        Effect.promise(() =>
          Promise.all(
            Array.from({ length: burst }, () =>
              fetch(`${base}/v1/vendors`, { headers: { authorization: `Bearer ${keys.orgA}` } }).then(
                async (response) => {
                  answered++
                  await response.arrayBuffer()
                  return { status: response.status, requestId: response.headers.get("request-id") ?? "" }
                }
              )
            )
          )
        )
      )
      yield* waitingForLock("the audit writer waits for the locked table")
      // Another round trip through the server and back: had an answer left before its commit, it
      // would have arrived by now.
      const health = yield* Effect.promise(() => fetch(`${base}/health`).then((response) => response.status))
      assert.strictEqual(health, 200)
      assert.strictEqual(answered, 0, "no answer left while its entry was not committed")
      yield* unlock
      const answers = yield* Fiber.join(requests)
      assert.deepStrictEqual(
        answers.map((answer) => answer.status),
        Array.from({ length: burst }, () => 200)
      )
      const ids = answers.map((answer) => answer.requestId)
      const rows = yield* sql<{ request_id: string; n: number }>`
        SELECT request_id, count(*)::int AS n FROM audit_log WHERE request_id IN ${sql.in(ids)} GROUP BY request_id`
      assert.strictEqual(rows.length, burst, "every answer has its entry")
      assert.isTrue(
        rows.every((row) => row.n === 1),
        "no entry is written twice"
      )
    })
  )
})
