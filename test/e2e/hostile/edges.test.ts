/**
 * Requests at the edges of what the router and Node read, replayed from a hostile probe: a
 * receivable id of thousands of characters is the documented 404 (once the router's own bound on
 * a path segment made it a 405), and `CONNECT` is answered in the documented shape, audited, where
 * Node used to close the connection without a word.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { insertFixture, keys } from "../../support/Fixtures.ts"
import { exchange, rawGet } from "../../support/RawHttp.ts"
import { BaseUrl, layer as serverLayer } from "../../support/TestServer.ts"

const TestLayer = Layer.effectDiscard(insertFixture).pipe(Layer.provideMerge(serverLayer))

const auditOf = (requestId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ method: string; path: string; status: number }>`
    SELECT method, path, status FROM audit_log WHERE request_id = ${requestId}`
  ).pipe(Effect.orDie)

/** The status line, the headers (lower-cased names) and the JSON body of a raw answer. */
const parse = (received: string) => {
  const [head = "", body = ""] = received.split("\r\n\r\n")
  const [statusLine = "", ...lines] = head.split("\r\n")
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()])
  )
  return { status: Number(statusLine.split(" ")[1]), headers, body: JSON.parse(body) as { error: object } }
}

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("requests at the edges", (it) => {
  it.effect("a receivable id of 5,000 characters is the documented 404 naming the id, like any malformed id", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      for (const length of [97, 5_000]) {
        const id = `rcv_${"0".repeat(length)}`
        const answer = yield* Effect.promise(() =>
          rawGet(base, `/v1/receivables/${id}`, { authorization: `Bearer ${keys.orgA}` })
        )
        assert.strictEqual(answer.status, 404, `id of ${length}`)
        assert.deepStrictEqual(JSON.parse(answer.body), {
          error: {
            type: "invalid_request_error",
            code: "resource_missing",
            message: `No such receivable: "${id}".`,
            param: "id"
          }
        })
      }
    })
  )

  it.effect("CONNECT is answered in the documented shape with a Request-Id, and audited", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const cases = [
        { target: "internal.example:443", status: 404, code: "resource_missing", allow: undefined },
        { target: "/v1/vendors", status: 405, code: "method_not_allowed", allow: "GET" }
      ]
      for (const c of cases) {
        const answer = parse(
          yield* Effect.promise(() => exchange(base, `CONNECT ${c.target} HTTP/1.1\r\nHost: x\r\n\r\n`))
        )
        assert.strictEqual(answer.status, c.status, c.target)
        assert.deepInclude(answer.body.error, { type: "invalid_request_error", code: c.code }, c.target)
        assert.strictEqual(answer.headers.allow, c.allow, c.target)
        assert.strictEqual(answer.headers.connection, "close")
        const requestId = answer.headers["request-id"] ?? ""
        assert.match(requestId, /^req_[0-9a-f]{24}$/)
        assert.deepStrictEqual(yield* auditOf(requestId), [{ method: "CONNECT", path: c.target, status: c.status }])
      }
    })
  )
})
