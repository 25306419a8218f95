/**
 * Where the sign-in throttles keep their times (`services/SignInThrottle.ts` decides which keys an
 * attempt counts against and under which policy): an attempt is recorded against every key at once
 * by the store's clock, or refused, without writing anything, when a key it is checked against
 * already holds its policy's count within the window; a recorded attempt can be taken back (a right
 * password, a password never tested) and a key cleared; the addresses that signed in to an account
 * are remembered. A store shared by several processes makes the throttles hold across them; the
 * memory twin holds them in one process. Depends on `effect` and the domain.
 */
import { Context, type Effect, Schema } from "effect"
import type { ThrottlePolicy } from "../domain/Dashboard.ts"

/** One key an attempt counts against: its table (the policy's name) and the key within it. */
export interface CountedKey {
  readonly table: string
  readonly key: string
  readonly policy: ThrottlePolicy
  /** Not checked (still written) when the attempt's address has signed in to `trust.account` before. */
  readonly unlessTrusted: boolean
}

export interface AttemptToRecord {
  /** In the order to check them: the cheapest refusal first. */
  readonly counted: ReadonlyArray<CountedKey>
  /** The account and address whose trust exempts the `unlessTrusted` keys. */
  readonly trust: { readonly account: string; readonly address: string } | undefined
  /**
   * The key (one of `counted`) that must hold no attempt within its window, before this one, for an
   * attempt from a trusted address to go first when hashes wait (`Recorded.first`).
   */
  readonly firstUnless: CountedKey | undefined
}

export type Recording =
  /**
   * Written against every key at `at` (epoch milliseconds of the store's clock); `first` when the
   * address is trusted for the account and `firstUnless` held nothing in its window.
   */
  | { readonly _tag: "Recorded"; readonly at: number; readonly first: boolean }
  /**
   * Nothing written: `full` holds, for each checked key at its policy's count, its times still in
   * the window (newest first), and `nowMillis` the store's clock; or `waitSeconds` says when a
   * store bounded in size has room again.
   */
  | {
      readonly _tag: "Refused"
      readonly nowMillis: number
      readonly full: ReadonlyArray<{ readonly policy: ThrottlePolicy; readonly times: ReadonlyArray<number> }>
      readonly waitSeconds: number
    }

/** What an attempt's outcome changes: its failures taken back, a key cleared, an address trusted. */
export interface Settlement {
  readonly at: number
  readonly takeBack: ReadonlyArray<{ readonly table: string; readonly key: string }>
  readonly clear: { readonly table: string; readonly key: string } | undefined
  readonly trust: { readonly account: string; readonly address: string } | undefined
}

/** The store could not be asked (a shared store that is unreachable); the caller decides what then. */
export class SignInThrottleStoreUnavailable extends Schema.TaggedError<SignInThrottleStoreUnavailable>()(
  "SignInThrottleStoreUnavailable",
  { message: Schema.String }
) {}

export class SignInThrottleStore extends Context.Service<
  SignInThrottleStore,
  {
    readonly record: (attempt: AttemptToRecord) => Effect.Effect<Recording, SignInThrottleStoreUnavailable>
    readonly settle: (settlement: Settlement) => Effect.Effect<void, SignInThrottleStoreUnavailable>
  }
>()("core/SignInThrottleStore") {}

/**
 * Where the throttles count while the `SignInThrottleStore` cannot be reached: this process's own
 * memory, never shared (the twin's `layerStandIn`). Required, not defaulted, so that the
 * throttles depend on ports alone and which twin stands in is decided where layers are assembled.
 */
export class SignInThrottleStandIn extends Context.Service<SignInThrottleStandIn, SignInThrottleStore["Service"]>()(
  "core/SignInThrottleStandIn"
) {}
