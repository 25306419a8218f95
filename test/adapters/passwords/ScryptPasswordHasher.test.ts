/**
 * Passwords hashed with scrypt: the right password verifies and no other does, every hash has its
 * own salt, the stored text names its parameters (so a hash made with other parameters still
 * verifies), and a stored text that is not such a hash is a "no", never a fault. At most the cap
 * of hashes run at once: one past it is refused at once, and a place is given back however a hash
 * ends.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Fiber, Redacted } from "effect"
import fc from "fast-check"
import { make } from "../../../adapters/passwords/ScryptPasswordHasher.ts"
import { hashesInFlight } from "../../../core/accounts/services/HashTurns.ts"

const cheap = make({ log2N: 10, r: 8, p: 1 })
const other = make({ log2N: 11, r: 4, p: 1 })

describe("ScryptPasswordHasher", () => {
  it.effect("the right password verifies, any other does not, under the parameters the hash names", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ maxLength: 40 }), (password, guess) =>
          Effect.runPromise(
            Effect.gen(function* () {
              const stored = yield* cheap.hash(Redacted.make(password))
              assert.match(stored, /^scrypt\$10\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
              assert.isTrue(yield* other.verify(Redacted.make(password), stored))
              assert.strictEqual(yield* cheap.verify(Redacted.make(guess), stored), guess === password)
            })
          )
        ),
        { numRuns: 15 }
      )
    )
  )

  it.effect("the same password hashes differently each time", () =>
    Effect.gen(function* () {
      const password = Redacted.make("correct horse battery staple")
      assert.notStrictEqual(yield* cheap.hash(password), yield* cheap.hash(password))
    })
  )

  it.effect("a stored text that is not a hash of ours verifies nothing", () =>
    Effect.gen(function* () {
      for (const stored of ["", "scrypt$", "bcrypt$2b$10$abc", "scrypt$40$8$1$AAAA$AAAA", "scrypt$10$8$1$AAAA$AAAA"]) {
        assert.isFalse(yield* cheap.verify(Redacted.make("anything"), stored))
      }
    })
  )

  // Dear enough (tens of milliseconds) that hashes started together are still running together.
  const slow = { log2N: 14, r: 8, p: 1 }

  it.effect("past the cap, a hash is refused at once as busy; the places are free again afterwards", () =>
    Effect.gen(function* () {
      const capped = make(slow, 2)
      const stored = yield* make(slow, 1).hash(Redacted.make("correct horse battery staple"))
      const tries = () =>
        Effect.all(
          Array.from({ length: 5 }, () => Effect.exit(capped.verify(Redacted.make("guess"), stored))),
          { concurrency: "unbounded" }
        )
      const refusedOf = (exits: ReadonlyArray<Exit.Exit<boolean, { readonly _tag: string }>>) =>
        exits.filter((exit) => Exit.isFailure(exit)).length
      assert.strictEqual(refusedOf(yield* tries()), 3)
      assert.strictEqual(refusedOf(yield* tries()), 3)
      assert.isTrue(yield* capped.verify(Redacted.make("correct horse battery staple"), stored))
    })
  )

  it.effect("an interrupted hash holds its place until scrypt is done with it, then gives it back", () =>
    Effect.gen(function* () {
      const capped = make(slow, 1)
      const running = yield* Effect.forkChild(capped.hash(Redacted.make("abandoned")))
      yield* Effect.yieldNow
      const interrupting = yield* Effect.forkChild(Fiber.interrupt(running))
      yield* Effect.yieldNow
      assert.isTrue(Exit.isFailure(yield* Effect.exit(capped.hash(Redacted.make("while it still runs")))))
      yield* Fiber.join(interrupting)
      assert.match(yield* capped.hash(Redacted.make("afterwards")), /^scrypt\$14\$/)
    })
  )

  it.effect("PASSWORD_HASHES_IN_FLIGHT is 2 unless set, a whole number from 1 to 64", () =>
    Effect.gen(function* () {
      const read = (value?: string) =>
        Effect.exit(
          hashesInFlight.pipe(
            Effect.provide(
              ConfigProvider.layer(
                ConfigProvider.fromUnknown(value === undefined ? {} : { PASSWORD_HASHES_IN_FLIGHT: value })
              )
            )
          )
        )
      assert.deepStrictEqual(yield* read(), Exit.succeed(2))
      assert.deepStrictEqual(yield* read("3"), Exit.succeed(3))
      for (const wrong of ["0", "65", "1.5", "two"]) assert.isTrue(Exit.isFailure(yield* read(wrong)), wrong)
    })
  )
})
