/**
 * The rules for a new password beyond its length: NFKC (every spelling of a password is one
 * password), and not a listed common password, in any case, nor one repeated, nor a character
 * repeated, nor a sequence. Laws over generated passwords, and the shipped list itself.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import fc from "fast-check"
import { layer as shippedList } from "../../../adapters/passwords/ShippedCommonPasswords.ts"
import {
  guessableProblem,
  normalizePassword,
  predictableRuns,
  repeatedUnit,
  verifyTyped
} from "../../../core/accounts/domain/PasswordRules.ts"
import { CommonPasswords } from "../../../core/accounts/ports/CommonPasswords.ts"

const listed = new Set(["password", "letmein", "qwerty123456"])
const isListed = (text: string) => listed.has(text)

describe("PasswordRules", () => {
  it("a listed password is refused in any case, and repeated any number of times", () =>
    fc.assert(
      fc.property(
        fc.constantFrom(...listed),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.boolean()),
        (word, times, upper) => {
          const cased = Array.from(word.repeat(times), (c, i) =>
            upper[i % Math.max(1, upper.length)] ? c.toUpperCase() : c
          ).join("")
          assert.isDefined(guessableProblem(cased, isListed))
        }
      )
    ))

  it("one character repeated is refused; a text that is no listed word repeated is not", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 1 }), fc.integer({ min: 12, max: 40 }), (c, n) => {
        assert.isDefined(guessableProblem(c.repeat(n), () => false))
      })
    )
    assert.isUndefined(guessableProblem("correct horse battery staple", isListed))
    assert.isUndefined(guessableProblem("passwordpassworx", isListed))
  })

  it("a sequence in one or two runs, forwards or backwards, along digits, the alphabet or a keyboard row, is refused", () => {
    const orders = ["0123456789", "abcdefghijklmnopqrstuvwxyz", "qwertyuiop", "asdfghjkl", "zxcvbnm"]
    const run = fc
      .record({
        order: fc.constantFrom(...orders),
        start: fc.nat({ max: 25 }),
        length: fc.integer({ min: 1, max: 14 }),
        backwards: fc.boolean(),
        upper: fc.boolean()
      })
      .map(({ order, start, length, backwards, upper }) => {
        const cyclic = order === "0123456789"
        const limit = cyclic ? length : Math.min(length, order.length)
        const from = cyclic ? start % order.length : Math.min(start % order.length, order.length - limit)
        const walked = Array.from({ length: limit }, (_, i) => order[(from + i) % order.length]).join("")
        const text = backwards ? [...walked].reverse().join("") : walked
        return upper ? text.toUpperCase() : text
      })
    fc.assert(
      fc.property(run, run, (first, second) => {
        fc.pre(first.length + second.length >= 12)
        assert.isDefined(
          guessableProblem(`${first}${second}`, () => false),
          `${first}${second}`
        )
      })
    )
    for (const sequence of [
      "123456789012",
      "210987654321",
      "abcdefghijkl",
      "qwertyuiopas",
      "abcabcabcabc",
      "aaaaaabbbbbb"
    ]) {
      assert.isDefined(
        guessableProblem(sequence, () => false),
        sequence
      )
    }
  })

  it("a chosen password is not taken for a sequence", () => {
    for (const chosen of ["correct horse battery staple", "tr0ub4dor&3xyz", "Kx9#mP2vLq7!", "grandma's 1987 recipe"]) {
      assert.isUndefined(
        guessableProblem(chosen, () => false),
        chosen
      )
    }
    // Random letters and digits: runs are rare, so a long random password always has more than two.
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const text = Array.from(bytes, (byte) => "abcdefghijklmnopqrstuvwxyz0123456789"[byte % 36]).join("")
        assert.isAbove(predictableRuns(text), 2, text)
      })
    )
  })

  it("the repeated unit of a repetition is its shortest period, and repeating it gives the text back", () =>
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 6 }), (unit, times) => {
        const text = unit.repeat(times)
        const found = repeatedUnit(text)
        assert.strictEqual(found.repeat(text.length / found.length), text)
        assert.isAtMost(found.length, unit.length)
      })
    ))

  it("NFKC makes full-width and composed spellings one password, and normalizing twice changes nothing", () => {
    assert.strictEqual(normalizePassword("ｐａｓｓｗｏｒｄ"), "password")
    assert.strictEqual(normalizePassword("caf\u0065\u0301"), "café")
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        assert.strictEqual(normalizePassword(normalizePassword(text)), normalizePassword(text))
      })
    )
  })

  it.effect("a password set before NFKC matches as typed; one set since matches in every spelling", () =>
    Effect.gen(function* () {
      const storedAs = (stored: string) => (typed: Redacted.Redacted<string>) =>
        Effect.succeed(Redacted.value(typed) === stored)
      assert.isTrue(yield* verifyTyped(storedAs("ｆｕｌｌ width pass"), Redacted.make("ｆｕｌｌ width pass")))
      assert.isTrue(yield* verifyTyped(storedAs("full width pass"), Redacted.make("ｆｕｌｌ width pass")))
      assert.isFalse(yield* verifyTyped(storedAs("full width pass"), Redacted.make("other password")))
    })
  )

  it.effect("the shipped list is read once and has the common passwords, in lower case", () =>
    Effect.gen(function* () {
      const list = yield* CommonPasswords
      for (const word of ["123456", "password", "qwerty123456", "1qaz2wsx3edc"])
        assert.isTrue(list.isListed(word), word)
      assert.isFalse(list.isListed("correct horse battery staple"))
      assert.isDefined(guessableProblem(normalizePassword("ＱＷＥＲＴＹ１２３４５６"), list.isListed))
    }).pipe(Effect.provide(shippedList))
  )
})
