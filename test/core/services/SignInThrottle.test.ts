/**
 * The throttle's memory is bounded, and a flood cannot buy its way out of a lock: past a table's
 * capacity the key with the fewest failures goes, never a locked one; an account's trusted
 * addresses are its own; every attempt, right or wrong, spends the address's allowance.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { accountThrottle, addressThrottle, pairThrottle } from "../../../core/accounts/domain/Dashboard.ts"
import {
  defaultCapacity,
  layerStandIn,
  makeMemoryThrottleState
} from "../../../core/accounts/memory/SignInThrottleStore.ts"
import {
  SignInThrottleStore,
  SignInThrottleStoreUnavailable
} from "../../../core/accounts/ports/SignInThrottleStore.ts"
import {
  addressAttempts,
  makeThrottle as makeThrottleOverStore,
  planAttempt,
  retryAfterSeconds
} from "../../../core/accounts/services/SignInThrottle.ts"

const now = 1_000_000

/** The core's plan of each attempt over the memory twin's state, driven synchronously at `nowMillis`. */
const makeThrottle = (capacity = defaultCapacity) => {
  const state = makeMemoryThrottleState(capacity)
  const admit = (account: string | undefined, clientAddress: string | null, nowMillis: number) => {
    const plan = planAttempt("password", account, clientAddress)
    const recording = state.record(plan.record, nowMillis)
    if (recording._tag === "Refused") {
      return { _tag: "Throttled", retryAfterSeconds: retryAfterSeconds(recording) } as const
    }
    const attempt = {
      succeeded: () => state.settle(plan.succeeded(recording.at)),
      untested: () => state.settle(plan.untested(recording.at))
    }
    return { _tag: "Admitted", attempt } as const
  }
  return { admit, sizes: state.sizes }
}
type Throttle = ReturnType<typeof makeThrottle>

/** Fails `account` from `address` until that pair is locked. */
const lock = (throttle: Throttle, account: string, address: string) => {
  for (let i = 0; i < pairThrottle.failures; i++)
    assert.strictEqual(throttle.admit(account, address, now)._tag, "Admitted")
  assert.strictEqual(throttle.admit(account, address, now)._tag, "Throttled")
}

/** The n-th address of a flood, each distinct, none of them the victim's. */
const floodAddress = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`

/** `count` wrong attempts on made-up accounts, each address used up to its failure allowance. */
const flood = (throttle: Throttle, count: number, first = 0) => {
  for (let i = 0; i < count; i++) {
    const address = floodAddress(first + Math.floor(i / addressThrottle.failures))
    throttle.admit(`made-up-${first + i}@example.com`, address, now)
  }
}

/** The account-wide lock: failures from fresh addresses, beyond the `already` counted. */
const lockAccount = (throttle: Throttle, account: string, already = 0) => {
  for (let i = 0; i < accountThrottle.failures - already; i++) {
    assert.strictEqual(throttle.admit(account, `192.0.2.${i + 1}`, now)._tag, "Admitted")
  }
}

/** Guesses on `account` from addresses it has never seen: how many get through. */
const guessesThrough = (throttle: Throttle, account: string, guesses: number) =>
  Array.from({ length: guesses }, (_, i) => throttle.admit(account, `198.18.${i >> 8}.${i & 255}`, now)).filter(
    (admission) => admission._tag === "Admitted"
  ).length

describe("SignInThrottle", () => {
  it("10,100 failures on made-up accounts leave a victim's account lock in place: none of 60 guesses pass", () => {
    const throttle = makeThrottle()
    lockAccount(throttle, "victim@example.com")
    flood(throttle, defaultCapacity + 100, 1)
    assert.strictEqual(guessesThrough(throttle, "victim@example.com", 60), 0)
    const sizes = throttle.sizes()
    for (const size of Object.values(sizes)) assert.isAtMost(size, defaultCapacity)
  })

  it("a flood of made-up accounts from any addresses, in any order, never evicts a lock, and memory stays bounded", () => {
    const capacity = 30
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(200), fc.nat(60)), { minLength: capacity, maxLength: 8 * capacity }),
        (attempts) => {
          const throttle = makeThrottle(capacity)
          lock(throttle, "victim@example.com", "203.0.113.9")
          lockAccount(throttle, "victim@example.com", pairThrottle.failures)
          for (const [account, address] of attempts)
            throttle.admit(`made-up-${account}@example.com`, floodAddress(address), now)
          assert.strictEqual(guessesThrough(throttle, "victim@example.com", 10), 0)
          assert.strictEqual(throttle.admit("victim@example.com", "203.0.113.9", now)._tag, "Throttled")
          for (const size of Object.values(throttle.sizes())) assert.isAtMost(size, capacity)
        }
      ),
      { numRuns: 60 }
    )
  })

  it("a flood pushes out the keys with the fewest failures first, so a victim's partial count outlasts it", () => {
    const throttle = makeThrottle(50)
    // Four wrong guesses of the victim's password from one address: one short of its lock.
    for (let i = 0; i < pairThrottle.failures - 1; i++) throttle.admit("victim@example.com", "203.0.113.9", now)
    flood(throttle, 500, 1)
    assert.strictEqual(throttle.admit("victim@example.com", "203.0.113.9", now)._tag, "Admitted")
    assert.strictEqual(throttle.admit("victim@example.com", "203.0.113.9", now)._tag, "Throttled")
  })

  it("while every key of a table is locked, a new key is refused until the first lock ends", () => {
    const throttle = makeThrottle(2)
    lock(throttle, "a@example.com", "192.0.2.1")
    lock(throttle, "b@example.com", "192.0.2.2")
    const refused = throttle.admit("c@example.com", "192.0.2.3", now)
    assert.strictEqual(refused._tag, "Throttled")
    assert.strictEqual(throttle.admit("a@example.com", "192.0.2.1", now)._tag, "Throttled")
    const later = now + (refused._tag === "Throttled" ? refused.retryAfterSeconds : 0) * 1000
    assert.strictEqual(throttle.admit("c@example.com", "192.0.2.3", later)._tag, "Admitted")
  })

  it("another account's good sign-ins from many addresses never evict a victim's trusted home address", () => {
    const throttle = makeThrottle(20)
    const home = "198.51.100.4"
    const first = throttle.admit("victim@example.com", home, now)
    if (first._tag === "Admitted") first.attempt.succeeded()
    for (let i = 0; i < 500; i++) {
      const admission = throttle.admit("other@example.com", floodAddress(i), now)
      if (admission._tag === "Admitted") admission.attempt.succeeded()
    }
    lockAccount(throttle, "victim@example.com")
    assert.strictEqual(guessesThrough(throttle, "victim@example.com", 5), 0)
    assert.strictEqual(throttle.admit("victim@example.com", home, now)._tag, "Admitted")
  })

  it("right passwords spend the address's allowance too: past it, even they wait", () => {
    const throttle = makeThrottle()
    const answers = Array.from({ length: addressAttempts.failures + 1 }, () => {
      const admission = throttle.admit("owner@example.com", "198.51.100.4", now)
      if (admission._tag === "Admitted") admission.attempt.succeeded()
      return admission._tag
    })
    assert.strictEqual(answers.filter((tag) => tag === "Admitted").length, addressAttempts.failures)
    assert.strictEqual(answers.at(-1), "Throttled")
    assert.strictEqual(throttle.admit("owner@example.com", "198.51.100.5", now)._tag, "Admitted")
  })

  it("an attempt that tested no password gives back its failures but not the address's attempt", () => {
    const throttle = makeThrottle()
    for (let i = 0; i < 3 * pairThrottle.failures; i++) {
      const admission = throttle.admit("owner@example.com", "198.51.100.4", now)
      if (admission._tag === "Admitted") admission.attempt.untested()
    }
    lock(throttle, "owner@example.com", "198.51.100.4")
  })

  it("attempts with no account, from however many addresses, never push an account out", () => {
    const throttle = makeThrottle(2)
    lock(throttle, "a@example.com", "192.0.2.1")
    for (let i = 0; i < 1000; i++) throttle.admit(undefined, `198.51.${i >> 8}.${i & 255}`, now)
    assert.strictEqual(throttle.admit("a@example.com", "192.0.2.1", now)._tag, "Throttled")
  })

  it.effect("while the shared store is unreachable, attempts are still throttled, counted in this process", () =>
    Effect.gen(function* () {
      const down = new SignInThrottleStoreUnavailable({ message: "connection refused" })
      const unreachable = Layer.succeed(
        SignInThrottleStore,
        SignInThrottleStore.of({ record: () => down, settle: () => down })
      )
      const throttle = yield* Effect.provide(makeThrottleOverStore("password"), [unreachable, layerStandIn()])
      const answers = yield* Effect.forEach(Array.from({ length: pairThrottle.failures + 1 }), () =>
        Effect.map(throttle.admit("owner@example.com", "198.51.100.4"), (admission) => admission._tag)
      )
      assert.deepStrictEqual(answers, [...Array(pairThrottle.failures).fill("Admitted"), "Throttled"])
    })
  )
})
