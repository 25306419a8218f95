/**
 * The innermost step: what the router's failures are answered with. No route for the method is
 * 405 with `Allow: GET` (a plain 404 page in the dashboard), a client that left is 499, and
 * anything else is a 500 whose body names the request and nothing of the failure.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect } from "effect"
import { HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Failures from "../../../../adapters/http/pipeline/Failures.ts"
import { CurrentRequest } from "../../../../adapters/http/pipeline/RequestContext.ts"
import { bodyOf, requestFor, textOf } from "./Requests.ts"

const incoming = HttpServerRequest.fromWeb(new Request("http://localhost/v1/vendors", { method: "POST" }))
const notFound = Effect.fail(
  new HttpServerError.HttpServerError({ reason: new HttpServerError.RouteNotFound({ request: incoming }) })
)

const answer = (router: Failures.Router, request = requestFor("/v1/vendors", { method: "POST" })) =>
  Failures.run(router, 10)(request).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, incoming))

describe("Failures", () => {
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
