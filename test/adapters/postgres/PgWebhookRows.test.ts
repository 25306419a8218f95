/**
 * Attempts recorded before answers were cut to an excerpt kept up to 4 KiB of the receiver's
 * answer; read now, they show the excerpt every newer attempt shows, never the rest.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { toAttempt } from "../../../adapters/postgres/PgWebhookRows.ts"
import { answerExcerpt, excerptCharacters } from "../../../core/webhooks/domain/AnswerExcerpt.ts"

const row = (body: string | null) => ({
  id: "wa_0",
  delivery_id: "wd_0",
  trigger: "scheduled",
  started_at: new Date(0),
  duration_ms: 1,
  outcome: "http_error",
  response_status: 500,
  response_body: body,
  error: null
})

describe("an attempt read from its row", () => {
  it("shows an old answer cut to the excerpt, and an excerpt unchanged", () =>
    fc.assert(
      fc.property(fc.string({ minLength: 0, maxLength: 4096 }), (body) => {
        const shown = toAttempt(row(`${body}Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789`)).responseBody!
        assert.isAtMost(Array.from(shown).length, excerptCharacters + 1)
        assert.notInclude(shown, "abcdefghijklmnopqrstuvwxyz0123456789")
        assert.strictEqual(toAttempt(row(answerExcerpt(body))).responseBody, answerExcerpt(body))
      })
    ))

  it("shows no answer as none", () => {
    assert.isNull(toAttempt(row(null)).responseBody)
  })
})
