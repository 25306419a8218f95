/**
 * The innermost step: what the router's failures are answered with. No route for the method is
 * 405 with `Allow: GET` (a plain 404 page in the dashboard), a client that left is 499, a database
 * that cannot be used right now is 503 with `Retry-After` (a page saying so in the dashboard), and
 * anything else is a 500 whose body names the request and nothing of the failure.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect } from "effect"
import { HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlError } from "effect/sql"
import fc from "fast-check"
import * as Failures from "../../../../adapters/http/pipeline/Failures.ts"
import * as Refusals from "../../../../adapters/http/pipeline/Refusals.ts"
import { CurrentRequest } from "../../../../adapters/http/pipeline/RequestContext.ts"
import { bodyOf, requestFor, textOf } from "./Requests.ts"

const incoming = HttpServerRequest.fromWeb(new Request("http://localhost/v1/vendors", { method: "POST" }))
const notFound = Effect.fail(
  new HttpServerError.HttpServerError({ reason: new HttpServerError.RouteNotFound({ request: incoming }) })
)

const answer = (router: Failures.Router, request = requestFor("/v1/vendors", { method: "POST" })) =>
  Failures.run(router, 10)(request).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, incoming))

/** An error as the PostgreSQL driver reports a server's: its fields, `code` among them, on the cause. */
const serverError = (code: string) => {
  const props = { cause: Object.assign(new Error("from the server"), { code }), message: "Query failed" }
  const reason = code.startsWith("08")
    ? new SqlError.ConnectionError(props)
    : code.startsWith("42")
      ? new SqlError.SqlSyntaxError(props)
      : new SqlError.UnknownError(props)
  return new SqlError.SqlError({ reason })
}

const sqlState = (classes: ReadonlyArray<string>) =>
  fc
    .tuple(fc.constantFrom(...classes), fc.stringMatching(/^[0-9A-Z]{3}$/))
    .map(([sqlClass, rest]) => `${sqlClass}${rest}`)

const refusedSocket = new SqlError.SqlError({
  reason: new SqlError.ConnectionError({
    cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
    message: "PgConnection: Failed to connect"
  })
})

describe("Failures", () => {
  it("a database that cannot take work is told from a fault of the request or the code", () => {
    fc.assert(fc.property(sqlState(["08"]), (code) => Failures.isDatabaseUnavailable(serverError(code))))
    for (const code of ["53300", "53400", "57P01", "57P02", "57P03"])
      assert.isTrue(Failures.isDatabaseUnavailable(serverError(code)))
    // Faults that last until an operator acts (a full disk, memory, I/O): errors, not "try again".
    for (const code of ["53100", "53200", "58000", "58030", "58P01"])
      assert.isFalse(Failures.isDatabaseUnavailable(serverError(code)))
    // A missing table, a constraint, a bad value, a cancelled statement: faults, never an outage.
    fc.assert(
      fc.property(
        sqlState(["42", "23", "22", "40", "P0", "XX"]),
        (code) => !Failures.isDatabaseUnavailable(serverError(code))
      )
    )
    for (const code of ["57014", "57P04"]) assert.isFalse(Failures.isDatabaseUnavailable(serverError(code)))
    assert.isTrue(Failures.isDatabaseUnavailable(refusedSocket))
    assert.isTrue(Failures.isDatabaseUnavailable(new Error("wrapped", { cause: refusedSocket })))
    assert.isFalse(Failures.isDatabaseUnavailable(new Error("connect ECONNREFUSED")))
  })

  it.effect("a database that cannot be used, failed or died with: 503 service_unavailable with Retry-After", () =>
    Effect.gen(function* () {
      for (const router of [Effect.die(serverError("57P01")), Effect.fail(refusedSocket)]) {
        const response = yield* answer(router)
        assert.strictEqual(response.status, 503)
        assert.strictEqual(response.headers["retry-after"], String(Refusals.retryAfterSeconds))
        assert.deepInclude((bodyOf(response) as { error: object }).error, {
          type: "api_error",
          code: "service_unavailable"
        })
      }
      assert.strictEqual((yield* answer(Effect.die(serverError("42P01")))).status, 500)
    })
  )

  it.effect("in the dashboard, a page that says the service is unavailable, with Retry-After", () =>
    Effect.gen(function* () {
      const response = yield* answer(
        Effect.die(serverError("08006")),
        requestFor("/dashboard/receivables", { dashboardMounted: true })
      )
      assert.strictEqual(response.status, 503)
      assert.strictEqual(response.headers["retry-after"], String(Refusals.retryAfterSeconds))
      assert.match(textOf(response), /unavailable/)
    })
  )

  it.effect("no route for the method: 405 method_not_allowed with Allow: GET", () =>
    Effect.gen(function* () {
      const response = yield* answer(notFound)
      assert.strictEqual(response.status, 405)
      assert.strictEqual(response.headers.allow, "GET")
      assert.deepInclude((bodyOf(response) as { error: object }).error, { code: "method_not_allowed" })
    })
  )

  it.effect("no page in the dashboard: a plain 404", () =>
    Effect.gen(function* () {
      const response = yield* answer(notFound, requestFor("/dashboard/nothing", { dashboardMounted: true }))
      assert.strictEqual(response.status, 404)
      assert.strictEqual(textOf(response), "There is no such page in the dashboard.")
    })
  )

  it.effect("a defect: 500 internal_error naming the request, nothing of the failure", () =>
    Effect.gen(function* () {
      const request = requestFor("/v1/vendors")
      const response = yield* answer(Effect.die(new Error("SELECT secret FROM internals")), request)
      assert.strictEqual(response.status, 500)
      const text = JSON.stringify(bodyOf(response))
      assert.include(text, request.requestId)
      assert.notInclude(text, "SELECT")
    })
  )

  it.effect("a client that left: 499", () =>
    Effect.gen(function* () {
      const response = yield* answer(
        Effect.failCause(Cause.annotate(Cause.interrupt(), HttpServerError.ClientAbort.annotation))
      )
      assert.strictEqual(response.status, Failures.clientClosedRequest)
    })
  )

  it.effect("the router sees the request being answered", () =>
    Effect.gen(function* () {
      const request = requestFor("/v1/vendors")
      let seen: unknown
      yield* answer(
        Effect.map(Effect.service(CurrentRequest), (current) => {
          seen = current
          return HttpServerResponse.text("ok")
        }),
        request
      )
      assert.strictEqual(seen, request)
    })
  )
})
