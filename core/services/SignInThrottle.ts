/**
 * Sign-in attempts remembered in this process's memory, and the wait they impose
 * (`throttledForSeconds` in `domain/Dashboard.ts`): failures per account and client address, per
 * client address, and per account from all addresses except those that have signed in to it
 * before; and every attempt, right or wrong, per client address, since each costs a hash. Like the
 * API's rate limits, each process keeps its own: N instances allow N times the attempts.
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

/** Keys kept per table. */
export const defaultCapacity = 10_000

/**
 * Per client address, every attempt whatever its outcome: sixty in 15 minutes (one every 15
 * seconds), room for an office behind one address and far below what a storm needs.
 */
export const addressAttempts: ThrottlePolicy = { failures: 60, window: Duration.minutes(15) }

/** Addresses remembered per account as having signed in to it: its most recent ones. */
export const trustedPerAccount = 16

/**
 * An attempt let through: counted as failed from the start, so that attempts running at the same
 * time see each other. The right password takes the failure back; so does an attempt that tested
 * no password at all (hashing was busy). Neither takes back the address's attempt.
 */
export interface Attempt {
  readonly succeeded: () => void
  readonly untested: () => void
}

export type Admission =
  | { readonly _tag: "Admitted"; readonly attempt: Attempt }
  | { readonly _tag: "Throttled"; readonly retryAfterSeconds: number }

/**
 * Times per key within its policy's window, at most `capacity` keys. A new key past the capacity
 * takes the place of the key with the fewest times still counting (the least recently written among
 * equals), never of a locked one: to push out a key with n failures, a flood must first give every
 * other key more than n, which costs more attempts than guessing directly; and while every key is
 * locked, new keys are refused until the first lock ends.
 */
const failureTable = (policy: ThrottlePolicy, capacity: number) => {
  // A Map iterates in insertion order; a write re-inserts, so the first key is the least recent.
  const times = new Map<string, Array<number>>()

  const windowMillis = Duration.toMillis(policy.window)
  const countedAt = (at: ReadonlyArray<number>, nowMillis: number) => {
    let count = 0
    for (const time of at) if (time > nowMillis - windowMillis && time <= nowMillis) count++
    return count
  }

  /** Seconds until a key can be added: 0 when it is known, there is room, or room was made. */
  const roomFor = (key: string, nowMillis: number): number => {
    if (times.has(key) || times.size < capacity) return 0
    let fewest: string | undefined
    let fewestCount = policy.failures
    let soonestFree = Number.POSITIVE_INFINITY
    for (const [candidate, at] of times) {
      const count = countedAt(at, nowMillis)
      if (count < fewestCount) {
        fewest = candidate
        fewestCount = count
        // A key of one failure is as cheap as a flood's keys come: no need to look further, so
        // that evictions cost little (10,100 made-up accounts are admitted in about 0.3 s).
        if (count <= 1) break
      } else soonestFree = Math.min(soonestFree, throttledForSeconds(at, nowMillis, policy))
    }
    if (fewest === undefined) return soonestFree
    times.delete(fewest)
    return 0
  }

  return {
    waitSeconds: (key: string, nowMillis: number) => throttledForSeconds(times.get(key) ?? [], nowMillis, policy),
    roomFor,
    add: (key: string, nowMillis: number) => {
      const kept = (times.get(key) ?? []).filter((at) => at > nowMillis - windowMillis)
      times.delete(key)
      times.set(key, [...kept, nowMillis])
    },
    takeBack: (key: string, at: number) => {
      const kept = times.get(key)
      const index = kept?.indexOf(at) ?? -1
      if (kept !== undefined && index >= 0) kept.splice(index, 1)
    },
    clear: (key: string) => times.delete(key),
    size: () => times.size
  }
}

/**
 * Addresses that signed in to each account, its `trustedPerAccount` most recent. Only a right
 * password adds one, so the accounts are real ones and memory is bounded by them; one account's
 * sign-ins never push out another's addresses.
 */
const trustedTable = () => {
  const byAccount = new Map<string, Array<string>>()
  return {
    has: (account: string, address: string) => byAccount.get(account)?.includes(address) === true,
    add: (account: string, address: string) => {
      const kept = (byAccount.get(account) ?? []).filter((known) => known !== address)
      byAccount.set(account, [...kept.slice(-(trustedPerAccount - 1)), address])
    }
  }
}

export const makeThrottle = (capacity = defaultCapacity) => {
  const pairs = failureTable(pairThrottle, capacity)
  const addresses = failureTable(addressThrottle, capacity)
  const accounts = failureTable(accountThrottle, capacity)
  const attempts = failureTable(addressAttempts, capacity)
  const trusted = trustedTable()

  /**
   * Lets an attempt on `account` (a normalized e-mail address; undefined when the text is not one,
   * which then counts against the client address only) from `clientAddress` through, or says how
   * long to wait.
   */
  const admit = (account: string | undefined, clientAddress: string | null, nowMillis: number): Admission => {
    const address = clientAddress === null ? null : throttledAddress(clientAddress)
    const pair = account === undefined ? undefined : `${account}\n${address ?? ""}`
    const counted: Array<readonly [ReturnType<typeof failureTable>, string]> = []
    if (pair !== undefined) counted.push([pairs, pair])
    if (address !== null) counted.push([addresses, address], [attempts, address])
    if (account !== undefined) counted.push([accounts, account])
    // The account-wide lock does not apply to an address that signed in to the account before.
    const trustedHere = account !== undefined && trusted.has(account, address ?? "")
    const checked = trustedHere ? counted.filter(([table]) => table !== accounts) : counted
    const waitSeconds = Math.max(0, ...checked.map(([table, key]) => table.waitSeconds(key, nowMillis)))
    if (waitSeconds > 0) return { _tag: "Throttled", retryAfterSeconds: waitSeconds }
    // Checked for every table before any is written, so that a refused attempt counts nowhere.
    const roomSeconds = Math.max(0, ...counted.map(([table, key]) => table.roomFor(key, nowMillis)))
    if (roomSeconds > 0) return { _tag: "Throttled", retryAfterSeconds: roomSeconds }
    for (const [table, key] of counted) table.add(key, nowMillis)
    const takeBackFailures = () => {
      if (address !== null) addresses.takeBack(address, nowMillis)
      if (account !== undefined) accounts.takeBack(account, nowMillis)
      if (pair !== undefined) pairs.takeBack(pair, nowMillis)
    }
    const succeeded = () => {
      takeBackFailures()
      if (pair !== undefined && account !== undefined) {
        // The right password from this address forgives the address's earlier mistakes.
        pairs.clear(pair)
        trusted.add(account, address ?? "")
      }
    }
    return { _tag: "Admitted", attempt: { succeeded, untested: takeBackFailures } }
  }

  /** Keys held per table, for tests of the memory bound. */
  const sizes = () => ({
    pairs: pairs.size(),
    addresses: addresses.size(),
    accounts: accounts.size(),
    attempts: attempts.size()
  })

  return { admit, sizes }
}
