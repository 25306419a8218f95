/**
 * The throttle's memory is bounded: each of its tables keeps its most recently used keys, and
 * text that is not an e-mail address takes no room among the accounts.
 */
import { assert, describe, it } from "@effect/vitest"
import { pairThrottle } from "../../../core/domain/Dashboard.ts"
import { makeThrottle } from "../../../core/services/SignInThrottle.ts"

const now = 1_000_000

/** Fails `account` from `address` until that pair is locked. */
const lock = (throttle: ReturnType<typeof makeThrottle>, account: string, address: string) => {
  for (let i = 0; i < pairThrottle.failures; i++)
    assert.strictEqual(throttle.admit(account, address, now)._tag, "Admitted")
  assert.strictEqual(throttle.admit(account, address, now)._tag, "Throttled")
}

describe("SignInThrottle", () => {
  it("past its capacity, the least recently failed account is forgotten", () => {
    const throttle = makeThrottle(2)
    lock(throttle, "a@example.com", "192.0.2.1")
    lock(throttle, "b@example.com", "192.0.2.2")
    assert.strictEqual(throttle.admit("a@example.com", "192.0.2.1", now)._tag, "Throttled")
    lock(throttle, "c@example.com", "192.0.2.3")
    assert.strictEqual(throttle.admit("a@example.com", "192.0.2.1", now)._tag, "Admitted")
  })

  it("attempts with no account, from however many addresses, never push an account out", () => {
    const throttle = makeThrottle(2)
    lock(throttle, "a@example.com", "192.0.2.1")
    for (let i = 0; i < 1000; i++) throttle.admit(undefined, `198.51.${i >> 8}.${i & 255}`, now)
    assert.strictEqual(throttle.admit("a@example.com", "192.0.2.1", now)._tag, "Throttled")
  })
})
