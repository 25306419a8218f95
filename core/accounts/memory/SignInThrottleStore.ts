/**
 * `SignInThrottleStore` in this process's memory, by this process's clock, held to the same
 * contract as `sign_in_attempts` (`test/contracts/SignInThrottleStore.contract.ts`): over the
 * memory world's `AccountsState` (`layerMemory`, as `MemoryStorage.layer` provides it), or over tables of
 * its own (`layerOwnState`, what the service runs without a database). Each table
 * keeps at most `capacity` keys; a new key past it takes the place of the key with the fewest
 * times still counting (the least recently written among equals), never of a locked one: to push
 * out a key with n failures, a flood must first give every other key more than n, which costs more
 * attempts than guessing directly; and while every key is locked, new keys are refused until the
 * first lock ends. Depends on `effect` and core only.
 */
import { Clock, Duration, Effect, Layer } from "effect"
import { recentFailures, type ThrottlePolicy, throttledForSeconds } from "../domain/Dashboard.ts"
import {
  type AttemptToRecord,
  type Recording,
  type Settlement,
  SignInThrottleStandIn,
  SignInThrottleStore
} from "../ports/SignInThrottleStore.ts"
import { AccountsState, type AccountTables } from "./AccountsState.ts"

/** The tables the throttles keep: the shared state's, or their own. */
export type ThrottleTables = Pick<AccountTables, "signInAttempts" | "trustedAddresses">

/** Keys kept per table. */
export const defaultCapacity = 10_000

/** Addresses remembered per account as having signed in to it: its most recent ones. */
export const trustedPerAccount = 16

/** Times per key within its policy's window, at most `capacity` keys. */
const failureTable = (policy: ThrottlePolicy, capacity: number, times: Map<string, Array<number>>) => {
  // A Map iterates in insertion order; a write re-inserts, so the first key is the least recent.
  const windowMillis = Duration.toMillis(policy.window)

  /** Seconds until a key can be added: 0 when it is known, there is room, or room was made. */
  const roomFor = (key: string, nowMillis: number): number => {
    if (times.has(key) || times.size < capacity) return 0
    let fewest: string | undefined
    let fewestCount = policy.failures
    let soonestFree = Number.POSITIVE_INFINITY
    for (const [candidate, at] of times) {
      const count = recentFailures(at, nowMillis, policy).length
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
    counting: (key: string, nowMillis: number) => recentFailures(times.get(key) ?? [], nowMillis, policy),
    roomFor,
    add: (key: string, nowMillis: number) => {
      const kept = (times.get(key) ?? []).filter((at) => at > nowMillis - windowMillis)
      times.delete(key)
      times.set(key, [...kept, nowMillis])
    }
  }
}

/**
 * The throttles' state, driven by the caller's clock: what the layer runs, and what the tests of
 * the memory bound drive directly. Trusted addresses are added by a right password only, so the
 * accounts are real ones and memory is bounded by them; one account's sign-ins never push out
 * another's addresses.
 */
export const makeMemoryThrottleState = (
  capacity = defaultCapacity,
  held: ThrottleTables = { signInAttempts: new Map(), trustedAddresses: new Map() }
) => {
  const { signInAttempts, trustedAddresses: trusted } = held
  const timesOf = (name: string) => {
    const found = signInAttempts.get(name)
    if (found !== undefined) return found
    const made = new Map<string, Array<number>>()
    signInAttempts.set(name, made)
    return made
  }
  const table = (name: string, policy: ThrottlePolicy) => failureTable(policy, capacity, timesOf(name))

  const record = (attempt: AttemptToRecord, nowMillis: number): Recording => {
    const isTrusted =
      attempt.trust !== undefined && trusted.get(attempt.trust.account)?.includes(attempt.trust.address) === true
    const full = attempt.counted
      .filter((counted) => !(counted.unlessTrusted && isTrusted))
      .map((counted) => ({
        policy: counted.policy,
        times: table(counted.table, counted.policy)
          .counting(counted.key, nowMillis)
          .toSorted((a, b) => b - a)
      }))
      .filter(({ policy, times }) => times.length >= policy.failures)
    if (full.length > 0) return { _tag: "Refused", nowMillis, full, waitSeconds: 0 }
    // Room is made in every table before any is written, so that a refused attempt counts nowhere.
    const waitSeconds = Math.max(
      0,
      ...attempt.counted.map((counted) => table(counted.table, counted.policy).roomFor(counted.key, nowMillis))
    )
    if (waitSeconds > 0) return { _tag: "Refused", nowMillis, full: [], waitSeconds }
    const quiet = attempt.firstUnless
    const first =
      isTrusted && (quiet === undefined || table(quiet.table, quiet.policy).counting(quiet.key, nowMillis).length === 0)
    for (const counted of attempt.counted) table(counted.table, counted.policy).add(counted.key, nowMillis)
    return { _tag: "Recorded", at: nowMillis, first }
  }

  const settle = (settlement: Settlement) => {
    for (const { table: name, key } of settlement.takeBack) {
      const kept = signInAttempts.get(name)?.get(key)
      const index = kept?.indexOf(settlement.at) ?? -1
      if (kept !== undefined && index >= 0) kept.splice(index, 1)
    }
    if (settlement.clear !== undefined) signInAttempts.get(settlement.clear.table)?.delete(settlement.clear.key)
    if (settlement.trust !== undefined) {
      const { account, address } = settlement.trust
      const kept = (trusted.get(account) ?? []).filter((known) => known !== address)
      trusted.set(account, [...kept.slice(-(trustedPerAccount - 1)), address])
    }
  }

  /** Keys held per table, for tests of the memory bound. */
  const sizes = () => Object.fromEntries(Array.from(signInAttempts, ([name, times]) => [name, times.size]))

  return { record, settle, sizes }
}

const storeOver = (state: ReturnType<typeof makeMemoryThrottleState>) =>
  SignInThrottleStore.of({
    record: (attempt) => Effect.map(Clock.currentTimeMillis, (now) => state.record(attempt, now)),
    settle: (settlement) => Effect.sync(() => state.settle(settlement))
  })

/** The twin over the shared state, beside the other twins. */
export const layerMemory: Layer.Layer<SignInThrottleStore, never, AccountsState> = Layer.effect(
  SignInThrottleStore,
  Effect.map(Effect.service(AccountsState), (tables) => storeOver(makeMemoryThrottleState(defaultCapacity, tables)))
)

/** The twin over a state of its own: throttles in this process alone. */
export const layerOwnState = (capacity = defaultCapacity): Layer.Layer<SignInThrottleStore> =>
  Layer.sync(SignInThrottleStore, () => storeOver(makeMemoryThrottleState(capacity)))

/** The stand-in while a shared store cannot be reached: the twin over a state of its own. */
export const layerStandIn = (capacity = defaultCapacity): Layer.Layer<SignInThrottleStandIn> =>
  Layer.sync(SignInThrottleStandIn, () => storeOver(makeMemoryThrottleState(capacity)))
