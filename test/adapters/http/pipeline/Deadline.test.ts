/**
 * The request deadline's parts: an answer in time passes, the deadline's interruption is told
 * apart from a client's hang-up, and its answer is 503 with Retry-After. That a stalled request is
 * really stopped and answered is checked over HTTP, where effect's server runs the request
 * (`test/e2e/in-flight.test.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect } from "effect"
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
  it.live("an answer in time passes", () =>
    Effect.gen(function* () {
      const answered = yield* answer(Effect.succeed(HttpServerResponse.text("in time")), 0.05)
      assert.strictEqual(answered.status, 200)
    })
  )

  it.effect("the deadline's interruption is answered 503 with Retry-After; a hang-up is still 499", () =>
    Effect.gen(function* () {
      const late = Cause.annotate(Cause.interrupt(), Deadline.DeadlineExceeded.annotation)
      const hungUp = Cause.annotate(Cause.interrupt(), HttpServerError.ClientAbort.annotation)
      assert.isTrue(Deadline.isExceeded(late))
      assert.isFalse(Deadline.isExceeded(hungUp))
      assert.isFalse(Deadline.isExceeded(Cause.interrupt()))
      const refused = yield* answer(Effect.failCause(late), 5)
      assert.strictEqual(refused.status, 503)
      assert.strictEqual(refused.headers["retry-after"], String(Deadline.retryAfterSeconds))
      assert.deepInclude((bodyOf(refused) as { error: object }).error, { code: "service_unavailable" })
      assert.strictEqual((yield* answer(Effect.failCause(hungUp), 5)).status, Failures.clientClosedRequest)
      // Both at once (a deadline, then the client gone before the router stopped): nobody reads it.
      const both = Cause.combine(late, hungUp)
      assert.strictEqual((yield* answer(Effect.failCause(both), 5)).status, Failures.clientClosedRequest)
    })
  )
})
