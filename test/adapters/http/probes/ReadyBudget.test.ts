/**
 * `/ready`'s allowance per client address, on the test clock: a burst, then a refill; other
 * addresses and other paths untouched.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import type { Step } from "../../../../adapters/http/pipeline/Step.ts"
import * as ReadyBudget from "../../../../adapters/http/probes/ReadyBudget.ts"
import { bodyOf, counted, requestFor } from "../pipeline/Requests.ts"

const statusesOf = (step: Step, times: number, from = "192.0.2.1") =>
  Effect.forEach(Array.from({ length: times }), () =>
    Effect.map(step(requestFor("/ready", { clientAddress: from }), counted().next), (answer) => answer.status)
  )

describe("ReadyBudget", () => {
  it.effect("answers a burst, then 429 with Retry-After until the allowance refills", () =>
    Effect.gen(function* () {
      const step = yield* ReadyBudget.step
      const { burst, perSecond } = ReadyBudget.policy
      assert.deepStrictEqual(yield* statusesOf(step, burst), Array(burst).fill(200))
      const refused = yield* step(requestFor("/ready", { clientAddress: "192.0.2.1" }), counted().next)
      assert.strictEqual(refused.status, 429)
      assert.strictEqual(refused.headers["retry-after"], "1")
      assert.deepInclude((bodyOf(refused) as { error: object }).error, { code: "rate_limited" })
      // Another address has its own allowance.
      assert.deepStrictEqual(yield* statusesOf(step, 1, "192.0.2.2"), [200])
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(yield* statusesOf(step, perSecond + 1), [...Array(perSecond).fill(200), 429])
    })
  )

  it.effect("limits /ready only: /health and every other path pass untouched", () =>
    Effect.gen(function* () {
      const step = yield* ReadyBudget.step
      for (const path of ["/health", "/v1/vendors"]) {
        const { runs, next } = counted()
        for (let i = 0; i < ReadyBudget.policy.burst * 3; i++) yield* step(requestFor(path), next)
        assert.strictEqual(runs.count, ReadyBudget.policy.burst * 3, path)
      }
    })
  )
})
