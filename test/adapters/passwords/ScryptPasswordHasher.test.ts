/**
 * Passwords hashed with scrypt: the right password verifies and no other does, every hash has its
 * own salt, the stored text names its parameters (so a hash made with other parameters still
 * verifies), and a stored text that is not such a hash is a "no", never a fault.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import fc from "fast-check"
import { make } from "../../../adapters/passwords/ScryptPasswordHasher.ts"

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
})
