/**
 * The request deadline: an answer in time passes, a router still working when the deadline
 * passes is interrupted and answered 503 with Retry-After, and a client's hang-up is still told
 * apart from it (499).
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect } from "effect"
import { HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Deadline from "../../../../adapters/http/pipeline/Deadline.ts"
import * as Failures from "../../../../adapters/http/pipeline/Failures.ts"
import { bodyOf, requestFor } from "./Requests.ts"

const incoming = HttpServerRequest.fromWeb(new Request("http://localhost/v1/vendors"))
const answer = (router: Failures.Router, seconds: number) =>
  Failures.run(
    router,
    seconds
  )(requestFor("/v1/vendors")).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, incoming))

describe("Deadline", () => {
  it.live("a router still working at the deadline is stopped and answered 503 with Retry-After", () =>
    Effect.gen(function* () {
      const stopped = yield* Deferred.make<void>()
      const refused = yield* answer(
        Effect.onInterrupt(Effect.never, () => Deferred.succeed(stopped, undefined)),
        0.05
      )
      assert.strictEqual(refused.status, 503)
      assert.strictEqual(refused.headers["retry-after"], String(Deadline.retryAfterSeconds))
      assert.deepInclude((bodyOf(refused) as { error: object }).error, { code: "service_unavailable" })
      assert.isTrue(yield* Deferred.isDone(stopped), "the router's work was interrupted")
    })
  )

  it.live("an answer in time passes", () =>
    Effect.gen(function* () {
      const answered = yield* answer(Effect.succeed(HttpServerResponse.text("in time")), 0.05)
      assert.strictEqual(answered.status, 200)
    })
  )

  it.live("a client's hang-up is not a deadline: 499", () =>
    Effect.gen(function* () {
      const response = yield* answer(
        Effect.failCause(Cause.annotate(Cause.interrupt(), HttpServerError.ClientAbort.annotation)),
        5
      )
      assert.strictEqual(response.status, Failures.clientClosedRequest)
    })
  )
})
