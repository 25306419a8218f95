/**
 * A failed run as consumers are told it: a class from a closed set and its fixed sentence,
 * whatever the recorded detail holds; the classes of the details the connectors and the sync
 * engine write.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import { classOf, consumerMessages, forConsumers, RunErrorClass } from "../../../core/receivables/domain/RunError.ts"

describe("RunError.forConsumers", () => {
  it("tells a failure only by its class's sentence: nothing of the detail passes", () =>
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (detail) => {
        const shown = forConsumers(detail)
        assert.isTrue(Schema.is(RunErrorClass)(shown.errorClass))
        assert.strictEqual(shown.error, consumerMessages[shown.errorClass!])
      })
    ))

  it("is null for a run that did not fail", () => {
    assert.deepStrictEqual(forConsumers(null), { error: null, errorClass: null })
  })

  it("no sentence names an address, a port, a path or a host", () => {
    for (const sentence of Object.values(consumerMessages)) {
      assert.notMatch(sentence, /\d+\.\d+|:\d|\/|https?|localhost/, sentence)
    }
  })

  it("classes the details the connectors and the sync engine write", () => {
    const details: ReadonlyArray<readonly [string, RunErrorClass]> = [
      ["http://10.0.0.5:8443 cannot be reached (ECONNREFUSED)", "portal_unreachable"],
      ["https://portal.internal/api/v2/invoices did not answer within 30 s", "portal_timeout"],
      ["https://portal.internal/api/v2/invoices is rate limiting us (429)", "portal_rate_limited"],
      ["https://portal.internal/api/v2/invoices refused the credentials (401)", "portal_credentials_refused"],
      ["https://portal.internal/api/v2/invoices answered 503", "portal_error"],
      ["https://portal.internal/api/v2/invoices answered with something that is not JSON", "portal_answer_unreadable"],
      ["https://acme.coupahost.com/oauth2/token gave no access token", "portal_answer_unreadable"],
      ["environment variable GLOBEX_PORTAL_KEY is not set", "secret_unavailable"],
      ["secrets file /run/secrets/globex cannot be read", "secret_unavailable"],
      ["/srv/exports/invoices.csv cannot be read", "export_unreadable"],
      ["the inbox /srv/cxml cannot be read", "export_unreadable"],
      ['the http-json configuration is not valid at "baseUrl": Expected an https URL', "configuration_invalid"],
      ["page 3 repeats earlier items: check the pagination settings", "configuration_invalid"],
      ['no connector of kind "ariba"', "configuration_invalid"],
      ["the sync did not finish within its deadline of 5m (SYNC_DEADLINE_SECONDS)", "deadline_exceeded"],
      ["connect ECONNREFUSED 10.0.0.9:5432", "sync_failed"]
    ]
    for (const [detail, expected] of details) assert.strictEqual(classOf(detail), expected, detail)
  })
})
