/**
 * Sign-in attempts and the wait they impose (`throttledForSeconds` in `domain/Dashboard.ts`):
 * failures per account and client address, per client address, and per account from all addresses
 * except those that have signed in to it before; and every attempt, right or wrong, per client
 * address, since each costs a hash. Which keys an attempt counts against, under which policy, and
 * what its outcome takes back are decided here, purely (`planAttempt`); the times are kept by a
 * `SignInThrottleStore`: shared by every process when it is PostgreSQL's, in this process's memory
 * otherwise. While the shared store cannot be reached, attempts are counted in this process alone,
 * as the API's rate limits are. Depends on `effect` and the core.
 */
import { Duration, Effect } from "effect"
import {
  accountThrottle,
  addressThrottle,
  pairThrottle,
  type ThrottlePolicy,
  throttledAddress,
  throttledForSeconds
} from "../domain/Dashboard.ts"
import {
  type AttemptToRecord,
  type Recording,
  type Settlement,
  SignInThrottleStandIn,
  SignInThrottleStore
} from "../ports/SignInThrottleStore.ts"

/**
 * Per client address, every attempt whatever its outcome: sixty in 15 minutes (one every 15
 * seconds), room for an office behind one address and far below what a storm needs.
 */
export const addressAttempts: ThrottlePolicy = { failures: 60, window: Duration.minutes(15) }

/**
 * An attempt let through: counted as failed from the start, so that attempts running at the same
 * time see each other. The right password takes the failure back; so does an attempt that tested
 * no password at all (hashing was busy). Neither takes back the address's attempt.
 */
export interface Attempt {
  readonly succeeded: Effect.Effect<void>
  readonly untested: Effect.Effect<void>
}

export type Admission =
  /** `first`: goes before everyone else when hashes wait (`domain/FairQueue.ts`). */
  | { readonly _tag: "Admitted"; readonly attempt: Attempt; readonly first: boolean }
  | { readonly _tag: "Throttled"; readonly retryAfterSeconds: number }

/**
 * What an attempt on `account` (a normalized e-mail address; undefined when the text is not one,
 * which then counts against the client address only) from `clientAddress` records, and what its
 * outcome changes once recorded at `at`. `scope` keeps throttles apart that share a store (wrong
 * passwords, wrong second-factor codes).
 */
export const planAttempt = (scope: string, account: string | undefined, clientAddress: string | null) => {
  const address = clientAddress === null ? null : throttledAddress(clientAddress)
  const key = (table: string, key: string, policy: ThrottlePolicy, unlessTrusted = false) => ({
    table: `${scope}.${table}`,
    key,
    policy,
    unlessTrusted
  })
  const pair = account === undefined ? undefined : key("pair", `${account}\n${address ?? ""}`, pairThrottle)
  const failures = [
    ...(address === null ? [] : [key("address", address, addressThrottle)]),
    // The account-wide lock does not apply to an address that signed in to the account before.
    ...(account === undefined ? [] : [key("account", account, accountThrottle, true)]),
    ...(pair === undefined ? [] : [pair])
  ]
  const trust = account === undefined ? undefined : { account: `${scope}\n${account}`, address: address ?? "" }
  // Every attempt per address first: a flood from one address is refused on it, before any write.
  // The owner goes first from an address they signed in from, unless an attempt on the account from
  // there is still counting: the account's own failures are what a flood aimed at it makes, and
  // must not take the owner's turn away.
  const record: AttemptToRecord = {
    counted: [...(address === null ? [] : [key("attempts", address, addressAttempts)]), ...failures],
    trust,
    firstUnless: pair
  }
  const untested = (at: number): Settlement => ({ at, takeBack: failures, clear: undefined, trust: undefined })
  // The right password from this address forgives the address's earlier mistakes.
  const succeeded = (at: number): Settlement => ({ at, takeBack: failures, clear: pair, trust })
  return { record, untested, succeeded }
}

/** Seconds a refused attempt waits: until the soonest time every full key has room again. */
export const retryAfterSeconds = (refused: Extract<Recording, { _tag: "Refused" }>): number =>
  Math.max(
    refused.waitSeconds,
    ...refused.full.map(({ policy, times }) => throttledForSeconds(times, refused.nowMillis, policy))
  )

/**
 * A throttle over the `SignInThrottleStore` in context, with the `SignInThrottleStandIn` counting
 * while that store is unreachable.
 */
export const makeThrottle = (scope: string) =>
  Effect.gen(function* () {
    const shared = yield* Effect.service(SignInThrottleStore)
    const local = yield* Effect.service(SignInThrottleStandIn)

    const admit = (account: string | undefined, clientAddress: string | null) =>
      Effect.gen(function* () {
        const plan = planAttempt(scope, account, clientAddress)
        const [store, recording] = yield* shared.record(plan.record).pipe(
          Effect.map((recorded) => [shared, recorded] as const),
          Effect.catchTag("SignInThrottleStoreUnavailable", () =>
            Effect.map(Effect.orDie(local.record(plan.record)), (recorded) => [local, recorded] as const)
          )
        )
        if (recording._tag === "Refused") {
          return { _tag: "Throttled", retryAfterSeconds: retryAfterSeconds(recording) } satisfies Admission
        }
        // A settlement that cannot be written leaves the failure counted until its window ends.
        const settle = (settlement: Settlement) =>
          store
            .settle(settlement)
            .pipe(
              Effect.catchTag("SignInThrottleStoreUnavailable", (error) =>
                Effect.logWarning("a sign-in attempt could not be taken back", error)
              )
            )
        const attempt: Attempt = {
          succeeded: settle(plan.succeeded(recording.at)),
          untested: settle(plan.untested(recording.at))
        }
        return { _tag: "Admitted", attempt, first: recording.first } satisfies Admission
      })

    return { admit }
  })
