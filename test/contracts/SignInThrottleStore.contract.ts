/**
 * The contract of the `SignInThrottleStore` port, one suite run against every implementation (the
 * in-memory twin, PostgreSQL): `describeSignInThrottleStore(name, layer)`, through the core's
 * throttle, which is what users meet. Each case uses accounts and client addresses of its own; the
 * windows are 15 minutes, so nothing leaves them while a case runs, whichever clock the store reads.
 */
import { randomInt, randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { accountThrottle, addressThrottle, pairThrottle } from "../../core/accounts/domain/Dashboard.ts"
import { layerStandIn } from "../../core/accounts/memory/SignInThrottleStore.ts"
import type { SignInThrottleStore } from "../../core/accounts/ports/SignInThrottleStore.ts"
import { type Admission, addressAttempts, makeThrottle } from "../../core/accounts/services/SignInThrottle.ts"

const freshAccount = () => `${randomUUID()}@example.com`
const freshAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(256)}`
const windowSeconds = Duration.toSeconds(pairThrottle.window)

const admitted = (admission: Admission) =>
  admission._tag === "Admitted" ? Effect.succeed(admission.attempt) : Effect.die("throttled")

/** Whether an admitted attempt goes first when hashes wait. */
const first = (admission: Admission) =>
  admission._tag === "Admitted" ? Effect.succeed(admission.first) : Effect.die("throttled")

export const describeSignInThrottleStore = (name: string, storage: Layer.Layer<SignInThrottleStore, unknown>) =>
  layer(Layer.merge(storage, layerStandIn()), { timeout: 60_000 })(`SignInThrottleStore contract (${name})`, (it) => {
    it.effect(
      "an account and address fail up to their count, then wait out the window, the refusals adding nothing",
      () =>
        Effect.gen(function* () {
          const throttle = yield* makeThrottle("password")
          const [account, address] = [freshAccount(), freshAddress()]
          for (let i = 0; i < pairThrottle.failures; i++) yield* admitted(yield* throttle.admit(account, address))
          const refusals = yield* Effect.forEach(Array.from({ length: 3 }), () => throttle.admit(account, address))
          for (const refused of refusals) {
            assert.strictEqual(refused._tag, "Throttled")
            if (refused._tag === "Throttled")
              assert.isTrue(refused.retryAfterSeconds >= 1 && refused.retryAfterSeconds <= windowSeconds)
          }
          // Another address is not this pair's: it passes.
          assert.strictEqual((yield* throttle.admit(account, freshAddress()))._tag, "Admitted")
        })
    )

    it.effect(
      "attempts at the same time see each other: in 30 rounds of many at once, exactly the count pass each time",
      () =>
        Effect.gen(function* () {
          const throttle = yield* makeThrottle("password")
          for (let round = 0; round < 30; round++) {
            const [account, address] = [freshAccount(), freshAddress()]
            const all = yield* Effect.forEach(
              Array.from({ length: 3 * pairThrottle.failures }),
              () => throttle.admit(account, address),
              {
                concurrency: "unbounded"
              }
            )
            assert.strictEqual(all.filter((admission) => admission._tag === "Admitted").length, pairThrottle.failures)
          }
        })
    )

    it.effect(
      "a right password takes its failure back, forgives the address, and trusts it past the account's lock",
      () =>
        Effect.gen(function* () {
          const throttle = yield* makeThrottle("password")
          const [account, home] = [freshAccount(), freshAddress()]
          for (let i = 0; i < pairThrottle.failures - 1; i++) yield* admitted(yield* throttle.admit(account, home))
          yield* (yield* admitted(yield* throttle.admit(account, home))).succeeded
          // The pair's earlier failures were cleared: a full count again from home.
          for (let i = 0; i < pairThrottle.failures - 1; i++) yield* admitted(yield* throttle.admit(account, home))
          for (let i = 0; i < accountThrottle.failures; i++) yield* throttle.admit(account, freshAddress())
          assert.strictEqual((yield* throttle.admit(account, freshAddress()))._tag, "Throttled")
          assert.strictEqual((yield* throttle.admit(account, home))._tag, "Admitted")
        })
    )

    it.effect(
      "an attempt goes first from an address that signed in to the account, while none of its own there still counts",
      () =>
        Effect.gen(function* () {
          const throttle = yield* makeThrottle("password")
          const [account, home] = [freshAccount(), freshAddress()]
          const before = yield* throttle.admit(account, home)
          assert.isFalse(yield* first(before))
          yield* (yield* admitted(before)).succeeded
          // Failures on the account from elsewhere, a flood's, do not take the owner's turn away.
          for (let i = 0; i < 3; i++) yield* admitted(yield* throttle.admit(account, freshAddress()))
          const trusted = yield* throttle.admit(account, home)
          assert.isTrue(yield* first(trusted))
          // An attempt from home that is still counting (in flight, or wrong) does.
          assert.isFalse(yield* first(yield* throttle.admit(account, home)))
          yield* (yield* admitted(trusted)).succeeded
          assert.isTrue(yield* first(yield* throttle.admit(account, home)))
          assert.isFalse(yield* first(yield* throttle.admit(account, freshAddress())))
          assert.isFalse(yield* first(yield* throttle.admit(freshAccount(), home)))
        })
    )

    it.effect("an untested attempt gives back its failures but not the address's attempt", () =>
      Effect.gen(function* () {
        const throttle = yield* makeThrottle("password")
        const address = freshAddress()
        for (let i = 0; i < addressAttempts.failures; i++) {
          yield* (yield* admitted(yield* throttle.admit(freshAccount(), address))).untested
        }
        assert.strictEqual((yield* throttle.admit(freshAccount(), address))._tag, "Throttled")
      })
    )

    it.effect("failures from one address on many accounts lock the address for every account", () =>
      Effect.gen(function* () {
        const throttle = yield* makeThrottle("password")
        const address = freshAddress()
        for (let i = 0; i < addressThrottle.failures; i++)
          yield* admitted(yield* throttle.admit(freshAccount(), address))
        assert.strictEqual((yield* throttle.admit(freshAccount(), address))._tag, "Throttled")
        assert.strictEqual((yield* throttle.admit(undefined, address))._tag, "Throttled")
      })
    )

    it.effect("throttles of different scopes over one store count apart", () =>
      Effect.gen(function* () {
        const passwords = yield* makeThrottle("password")
        const codes = yield* makeThrottle("code")
        const [account, address] = [freshAccount(), freshAddress()]
        for (let i = 0; i < pairThrottle.failures; i++) yield* admitted(yield* passwords.admit(account, address))
        assert.strictEqual((yield* passwords.admit(account, address))._tag, "Throttled")
        assert.strictEqual((yield* codes.admit(account, address))._tag, "Admitted")
      })
    )
  })
