/**
 * A fault the API cannot handle (here the database losing a table) answers 500 `internal_error`
 * in the documented shape, with its request id and nothing of the SQL, the schema or a stack.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { insertFixture, keys } from "../support/Fixtures.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

const TestLayer = Layer.effectDiscard(insertFixture).pipe(Layer.provideMerge(serverLayer))

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("internal errors", (it) => {
  it.effect("become a 500 that says nothing of internals", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const base = yield* BaseUrl
      yield* sql`ALTER TABLE receivable_history RENAME TO receivable_history_gone`
      const response = yield* Effect.promise(() =>
        fetch(`${base}/v1/receivables/rcv_00000000000000000000000000000001`, {
          headers: { authorization: `Bearer ${keys.orgA}` }
        })
      )
      const text = yield* Effect.promise(() => response.text())
      assert.strictEqual(response.status, 500)
      const requestId = response.headers.get("request-id")
      assert.deepStrictEqual(JSON.parse(text), {
        error: {
          type: "api_error",
          code: "internal_error",
          message: `Something went wrong on our side; quote request ${requestId} to support.`
        }
      })
      assert.notMatch(text, /receivable_history|relation|SELECT|sql|at /i)
    })
  )
})
