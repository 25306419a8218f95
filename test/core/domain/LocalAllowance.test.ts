/**
 * The local allowance held to the shared bucket: N simulated processes, each with its own
 * allowance, refill from one GCRA bucket modelled by the domain's `take` (with a cost), as
 * `PgRateLimitStore` does. Over any sequence of requests spread over them, the admissions in any
 * window never exceed what the bucket allows over it plus the stated bound (processes x batch),
 * and over the whole run never exceed what the bucket allows; a single process refuses only what
 * the bucket, asked one request at a time, could also refuse at that instant.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as LocalAllowance from "../../../core/access/domain/LocalAllowance.ts"
import * as RateLimit from "../../../core/shared/domain/RateLimit.ts"

const policies = fc.record({
  perSecond: fc.double({ min: 0.5, max: 500, noNaN: true }),
  burst: fc.integer({ min: 1, max: 120 })
})

const runs = fc.record({
  policy: policies,
  processes: fc.integer({ min: 1, max: 5 }),
  start: fc.double({ min: 1.7e12, max: 1.9e12, noNaN: true }),
  requests: fc.array(
    fc.record({
      process: fc.nat(4),
      // Bursts (no gap), a steady pace, and pauses past the allowance's lapse.
      gap: fc.oneof(
        fc.constant(0),
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.double({ min: 0, max: 1500, noNaN: true })
      )
    }),
    { minLength: 1, maxLength: 300 }
  )
})

interface Outcome {
  readonly at: number
  readonly admitted: boolean
  /** Whether the bucket, asked for one request at that instant, had one to give. */
  readonly bucketHadOne: boolean
}

/** The requests through the processes' allowances over one shared bucket, as the PostgreSQL store runs them. */
const simulate = (
  policy: RateLimit.RateLimitPolicy,
  processes: number,
  start: number,
  requests: ReadonlyArray<{ readonly process: number; readonly gap: number }>
) => {
  let tat: number | undefined
  const held: Array<LocalAllowance.Allowance | undefined> = Array.from({ length: processes }, () => undefined)
  const ask = (process: number, cost: number, now: number) => {
    const decision = RateLimit.take(policy, tat, now, cost)
    tat = decision.tatMillis
    const answer = { cost, admitted: decision.allowed, tatMillis: decision.tatMillis, storeMillis: now }
    held[process] = LocalAllowance.refilled(held[process], policy, answer, now)
    return answer
  }
  const outcomes: Array<Outcome> = []
  let now = start
  for (const request of requests) {
    now += request.gap
    const process = request.process % processes
    const bucketHadOne = RateLimit.take(policy, tat, now).allowed
    const plan = LocalAllowance.plan(held[process], policy, now)
    if (plan._tag === "Ask") {
      const answer = ask(process, plan.cost, now)
      if (LocalAllowance.oneLeft(policy, answer) && held[process]!.tokens === 0) ask(process, 1, now)
    }
    const allowance = held[process]
    const admitted = plan._tag !== "Refuse" && allowance !== undefined && allowance.tokens > 0
    if (admitted) held[process] = LocalAllowance.spend(allowance, now)[1]
    outcomes.push({ at: now, admitted, bucketHadOne })
  }
  return outcomes
}

/** What the GCRA lets through between two instants: the burst's ceiling and the refill meanwhile. */
const allowedOver = (policy: RateLimit.RateLimitPolicy, millis: number) =>
  Math.floor((RateLimit.ceilingMillis(policy) + millis) / RateLimit.intervalMillis(policy) + 1e-9)

describe("LocalAllowance", () => {
  it("admits, in any window, at most what the shared bucket allows plus processes x batch", () => {
    fc.assert(
      fc.property(runs, ({ policy, processes, start, requests }) => {
        const admittedAt = simulate(policy, processes, start, requests)
          .filter((outcome) => outcome.admitted)
          .map((outcome) => outcome.at)
        const bound = LocalAllowance.overAdmission(policy, processes)
        for (let i = 0; i < admittedAt.length; i++) {
          for (let j = i; j < admittedAt.length; j++) {
            const window = admittedAt[j]! - admittedAt[i]!
            assert.isAtMost(j - i + 1, allowedOver(policy, window) + bound)
          }
        }
        // Over the whole run every admission spent a token of the bucket: no bound needed.
        if (admittedAt.length > 0) {
          assert.isAtMost(admittedAt.length, allowedOver(policy, admittedAt.at(-1)! - start))
        }
      }),
      { numRuns: 300 }
    )
  })

  it("in one process, refuses only where the bucket had nothing to give", () => {
    fc.assert(
      fc.property(runs, ({ policy, start, requests }) => {
        const outcomes = simulate(policy, 1, start, requests)
        for (const outcome of outcomes) if (!outcome.admitted) assert.isFalse(outcome.bucketHadOne)
      }),
      { numRuns: 300 }
    )
  })

  it("sizes a batch from the recent rate, within a tenth of the burst and what the bucket had left", () => {
    const policy = { perSecond: 1000, burst: 1000 }
    const now = 1.8e12
    const held = (spentSince: number, tatMillis: number): LocalAllowance.Allowance => ({
      policy,
      tokens: 0,
      tatMillis,
      offsetMillis: 0,
      lapsesAt: now + 500,
      batchAt: now - 500,
      spentSince
    })
    // 40 requests in half a second: 80 per second, half a second's worth.
    assert.strictEqual(LocalAllowance.batchSize(held(40, now), policy, now), 40)
    // A fast key: capped at a tenth of the burst.
    assert.strictEqual(LocalAllowance.batchSize(held(5000, now), policy, now), 100)
    // The bucket had 3 left when last seen.
    assert.strictEqual(LocalAllowance.batchSize(held(40, now + 998), policy, now), 3)
    // Nothing known of the limit: one.
    assert.strictEqual(LocalAllowance.batchSize(undefined, policy, now), 1)
  })
})
