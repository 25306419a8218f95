/**
 * Sign-in throttles across processes: two instances of the dashboard's accounts on one database,
 * as two `serve` processes run them, wrong passwords for one account from one address split across
 * both. With the throttles where `LIMITS_STORE=postgres` keeps them, the two together allow the
 * pair's count and refuse the next; kept in each process (`memory`), each allows it whole.
 */
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import { AccountsLive } from "../../app/Layers.ts"
import { pairThrottle } from "../../core/accounts/domain/Dashboard.ts"
import { Accounts } from "../../core/accounts/services/Accounts.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

/** An instance of the accounts of its own, as a process builds it, with its limits' store. */
const instance = (store: "postgres" | "memory") =>
  Layer.build(
    Layer.fresh(AccountsLive).pipe(
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ LIMITS_STORE: store })))
    )
  ).pipe(Effect.map(Context.get(Accounts)))

/** `count` wrong passwords for `email` from `address` through `accounts`: how each was refused. */
const wrongPasswords = (accounts: Accounts["Service"], email: string, address: string, count: number) =>
  Effect.forEach(Array.from({ length: count }), () =>
    accounts.signIn(email, Redacted.make("not the password"), address).pipe(
      Effect.flip,
      Effect.map((refused) => (refused._tag === "SignInRefused" ? refused.reason : refused._tag))
    )
  )

const first = Math.ceil(pairThrottle.failures / 2)
const rest = pairThrottle.failures - first

layer(TestDatabase.layer, { timeout: 120_000, excludeTestServices: true })(
  "sign-in throttles across instances",
  (it) => {
    it.effect(
      "with LIMITS_STORE=postgres, two instances together allow one account and address its count, then refuse",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const [one, two] = [yield* instance("postgres"), yield* instance("postgres")]
            const email = "shared@example.com"
            assert.deepStrictEqual(
              yield* wrongPasswords(one, email, "192.0.2.7", first),
              Array(first).fill("credentials")
            )
            assert.deepStrictEqual(yield* wrongPasswords(two, email, "192.0.2.7", rest + 1), [
              ...Array(rest).fill("credentials"),
              "throttled"
            ])
            assert.strictEqual((yield* wrongPasswords(one, email, "192.0.2.7", 1))[0], "throttled")
          })
        )
    )

    it.effect("with LIMITS_STORE=memory, each instance counts its own and allows the count whole", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const [one, two] = [yield* instance("memory"), yield* instance("memory")]
          const email = "apart@example.com"
          yield* wrongPasswords(one, email, "192.0.2.8", pairThrottle.failures)
          assert.deepStrictEqual(
            yield* wrongPasswords(two, email, "192.0.2.8", pairThrottle.failures),
            Array(pairThrottle.failures).fill("credentials")
          )
        })
      )
    )
  }
)
