/** The request deadline, on the test clock: an answer in time passes, a late one becomes 503. */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { HttpServerResponse } from "effect/http"
import { TestClock } from "effect/testing"
import * as Deadline from "../../../../adapters/http/pipeline/Deadline.ts"
import { bodyOf, requestFor } from "./Requests.ts"

describe("Deadline", () => {
  it.effect("lets an answer in time pass, and answers 503 with Retry-After once the deadline passes", () =>
    Effect.gen(function* () {
      const step = Deadline.make(2)
      const slow = (seconds: number) =>
        Effect.as(Effect.sleep(Duration.seconds(seconds)), HttpServerResponse.text("late or not"))
      const inTime = yield* Effect.forkChild(step(requestFor("/v1/vendors"), slow(1.9)))
      const late = yield* Effect.forkChild(step(requestFor("/v1/vendors"), slow(60)))
      yield* TestClock.adjust(Duration.seconds(2))
      assert.strictEqual((yield* Fiber.join(inTime)).status, 200)
      const refused = yield* Fiber.join(late)
      assert.strictEqual(refused.status, 503)
      assert.strictEqual(refused.headers["retry-after"], String(Deadline.retryAfterSeconds))
      assert.deepInclude((bodyOf(refused) as { error: object }).error, { code: "service_unavailable" })
    })
  )
})
