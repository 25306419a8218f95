/**
 * What is kept of a receiver's answer: a short excerpt without controls, whatever surrounds the
 * secrets in it (keys, signing secrets, tokens, passwords) redacted, never longer than its bound.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { isHidden } from "../../core/shared/domain/VisibleText.ts"
import { answerExcerpt, excerptCharacters } from "../../core/webhooks/domain/AnswerExcerpt.ts"

const token = fc.stringMatching(/^[A-Za-z0-9]{12,40}$/)

/** A secret as a service might put it in an answer, and the part of it that must not be shown. */
const secret = fc.oneof(
  token.map((t) => ({ text: `password=${t}`, hidden: t })),
  token.map((t) => ({ text: `"token": "${t}"`, hidden: t })),
  token.map((t) => ({ text: `Authorization: Bearer ${t}`, hidden: t })),
  token.map((t) => ({ text: `postgres://app:${t}@db.internal:5432/app`, hidden: t })),
  token.map((t) => ({ text: `whsec_${t}`, hidden: t })),
  fc.stringMatching(/^[A-Za-z0-9]{39}$/).map((t) => ({ text: `pr_live_${t}`, hidden: t })),
  fc.stringMatching(/^[A-Za-z0-9_-]{40,64}$/).map((t) => ({ text: t, hidden: t }))
)

const filler = fc.string({
  unit: fc.constantFrom("a", " ", "\n", "\t", "\u001b", "\u202e", "é", "{", ":", "\u0000"),
  maxLength: 150
})

describe("the excerpt of a receiver's answer", () => {
  it("keeps a short answer readable, its line breaks as spaces", () => {
    assert.strictEqual(answerExcerpt('{"error":\n  "invalid signature"}'), '{"error": "invalid signature"}')
    assert.strictEqual(answerExcerpt(""), "")
  })

  it("redacts a secret where it stands, and withholds the text only where one is encoded twice", () => {
    assert.strictEqual(
      answerExcerpt("denied: password=hunter2 for postgres://app:s3cret@db:5432/app"),
      "denied: password=[redacted] for postgres://app:[redacted]@db:5432/app"
    )
    assert.strictEqual(answerExcerpt("pass%2577ord=hunter2"), "[withheld: an encoded secret]")
  })

  it("cuts a long answer to its bound", () => {
    const excerpt = answerExcerpt("x ".repeat(2000))
    assert.strictEqual(Array.from(excerpt).length, excerptCharacters + 1)
    assert.isTrue(excerpt.endsWith("…"))
  })

  it("never shows a control character, nor more than its bound", () =>
    fc.assert(
      fc.property(fc.string({ maxLength: 4096, unit: "binary" }), (body) => {
        const excerpt = answerExcerpt(body)
        assert.isAtMost(Array.from(excerpt).length, excerptCharacters + 1)
        for (const char of excerpt) assert.isFalse(isHidden(char.codePointAt(0)!), JSON.stringify(char))
      })
    ))

  it("never shows a secret, wherever it stands, split by controls or not", () =>
    fc.assert(
      fc.property(filler, secret, filler, fc.boolean(), (before, { text, hidden }, after, split) => {
        const middle = split ? `${text.slice(0, -2)}\u0007${text.slice(-2)}` : text
        const excerpt = answerExcerpt(`${before} ${middle} ${after}`)
        assert.notInclude(excerpt, hidden)
        assert.notInclude(excerpt, hidden.slice(0, 12))
      })
    ))
})
