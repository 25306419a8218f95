/**
 * Sign-in attempts remembered in this process's memory, and the wait they impose
 * (`throttledForSeconds` in `domain/Dashboard.ts`): per account and client address, per client
 * address, and per account from all addresses except those that have signed in to it before.
 * Like the API's rate limits, each process keeps its own: N instances allow N times the attempts.
 * Depends on the core's domain alone.
 */
import { Duration } from "effect"
import {
  accountThrottle,
  addressThrottle,
  pairThrottle,
  type ThrottlePolicy,
  throttledAddress,
  throttledForSeconds
} from "../domain/Dashboard.ts"

/** Keys kept per table: past this, the least recently used is forgotten. */
export const defaultCapacity = 10_000

/**
 * An attempt let through: counted as failed from the start, so that attempts running at the same
 * time see each other; the right password takes it back.
 */
export interface Attempt {
  readonly succeeded: () => void
}

export type Admission =
  | { readonly _tag: "Admitted"; readonly attempt: Attempt }
  | { readonly _tag: "Throttled"; readonly retryAfterSeconds: number }

/** A map that keeps its `capacity` most recently written keys. */
const boundedMap = <V>(capacity: number) => {
  const map = new Map<string, V>()
  return {
    get: (key: string) => map.get(key),
    set: (key: string, value: V) => {
      map.delete(key)
      map.set(key, value)
      for (const oldest of map.keys()) {
        if (map.size <= capacity) break
        map.delete(oldest)
      }
    },
    delete: (key: string) => map.delete(key)
  }
}

/** Failure times per key, each key's kept to its policy's window. */
const failureTable = (policy: ThrottlePolicy, capacity: number) => {
  const failures = boundedMap<Array<number>>(capacity)
  const windowMillis = Duration.toMillis(policy.window)
  return {
    waitSeconds: (key: string, nowMillis: number) => throttledForSeconds(failures.get(key) ?? [], nowMillis, policy),
    add: (key: string, nowMillis: number) =>
      failures.set(key, [...(failures.get(key) ?? []).filter((at) => at > nowMillis - windowMillis), nowMillis]),
    takeBack: (key: string, at: number) => {
      const kept = failures.get(key)
      const index = kept?.indexOf(at) ?? -1
      if (kept !== undefined && index >= 0) kept.splice(index, 1)
    },
    clear: (key: string) => failures.delete(key)
  }
}

export const makeThrottle = (capacity = defaultCapacity) => {
  const pairs = failureTable(pairThrottle, capacity)
  const addresses = failureTable(addressThrottle, capacity)
  const accounts = failureTable(accountThrottle, capacity)
  // Addresses that signed in to an account: the account-wide lock does not apply to them.
  const trusted = boundedMap<true>(capacity)

  /**
   * Lets an attempt on `account` (a normalized e-mail address; undefined when the text is not one,
   * which then counts against the client address only) from `clientAddress` through, or says how
   * long to wait.
   */
  const admit = (account: string | undefined, clientAddress: string | null, nowMillis: number): Admission => {
    const address = clientAddress === null ? null : throttledAddress(clientAddress)
    const pair = account === undefined ? undefined : `${account}\n${address ?? ""}`
    const waitSeconds = Math.max(
      pair === undefined ? 0 : pairs.waitSeconds(pair, nowMillis),
      address === null ? 0 : addresses.waitSeconds(address, nowMillis),
      account === undefined || (pair !== undefined && trusted.get(pair) === true)
        ? 0
        : accounts.waitSeconds(account, nowMillis)
    )
    if (waitSeconds > 0) return { _tag: "Throttled", retryAfterSeconds: waitSeconds }
    if (pair !== undefined) pairs.add(pair, nowMillis)
    if (address !== null) addresses.add(address, nowMillis)
    if (account !== undefined) accounts.add(account, nowMillis)
    const succeeded = () => {
      if (address !== null) addresses.takeBack(address, nowMillis)
      if (account !== undefined) accounts.takeBack(account, nowMillis)
      if (pair !== undefined) {
        // The right password from this address forgives the address's earlier mistakes.
        pairs.clear(pair)
        trusted.set(pair, true)
      }
    }
    return { _tag: "Admitted", attempt: { succeeded } }
  }

  return { admit }
}
