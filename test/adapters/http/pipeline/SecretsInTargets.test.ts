/**
 * What the pipeline keeps of a request's path and query (logs, traces, the audit log): no key
 * secret in any form a probe tried, and no dashboard token, however a pasted invite link was
 * mangled around it; everything else as received.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { redactSecrets } from "../../../../adapters/http/pipeline/RequestPath.ts"
import { makeApiKey, prefix, secretBytes } from "../../../../core/access/domain/ApiKey.ts"
import { requestFor } from "./Requests.ts"

const token = fc.stringMatching(/^[A-Za-z0-9_-]{43}$/)

// How a pasted invite link arrives: trailing punctuation, a path variant, an encoded space.
const linkForms: ReadonlyArray<(token: string) => string> = [
  (t) => `/dashboard/invite/${t}`,
  (t) => `/dashboard/invite/${t}.`,
  (t) => `/dashboard/invite/${t},`,
  (t) => `/dashboard/invite/${t})`,
  (t) => `/dashboard/invite/${t}/`,
  (t) => `/dashboard/invite/${t}%20`,
  (t) => `//dashboard/invite/${t}`,
  (t) => `/dashboard//invite/${t}`,
  (t) => `/dashboard/invite//${t}`,
  (t) => `/dashboard/invite%2F${t}`,
  (t) => `/dashboard/invite/${t.slice(0, 30)}`
]

describe("the path and query a request is kept with", () => {
  it("holds no invite token, in any form a pasted link arrives in, mounted or not", () =>
    fc.assert(
      fc.property(token, fc.boolean(), (t, dashboardMounted) => {
        for (const form of linkForms) {
          const request = requestFor(form(t), { dashboardMounted })
          assert.notInclude(decodeURIComponent(request.shownPath), t.slice(0, 30), form(t))
          assert.include(request.shownPath, "[redacted]")
        }
      })
    ))

  it("holds no invite token with something stuck to it, in the path or the query", () =>
    fc.assert(
      fc.property(token, fc.stringMatching(/^[A-Za-z0-9_-]{1,4}$/), (t, stuck) => {
        const request = requestFor(`/dashboard/invite/${stuck}${t}?q=${stuck}${t}&next=${t}${stuck}`)
        assert.notInclude(request.shownPath, t.slice(0, 30))
        assert.notInclude(request.shownQuery, t.slice(0, 30))
      })
    ))

  it("holds no key secret without its prefix or behind a prefix in capitals, in the path or the query", () =>
    fc.assert(
      fc.property(fc.uint8Array({ minLength: secretBytes, maxLength: secretBytes }), (bytes) => {
        const key = makeApiKey("pr", bytes)
        const secret = key.slice(prefix("pr").length)
        const request = requestFor(`/v1/receivables/${secret}?api_key=PR_LIVE_${secret}&limit=5`)
        assert.strictEqual(request.shownPath, "/v1/receivables/[redacted]")
        assert.strictEqual(request.shownQuery, "api_key=PR_LIVE_[redacted]&limit=5")
      })
    ))

  it("keeps ids, filters and timestamps as received", () => {
    const target =
      "verified_since=2026-01-01T00:00:00Z&vendor_id=0b6f1c1e-2a4b-4c1d-9e8f-0123456789ab&starting_after=rcv_0123456789abcdef0123456789abcdef"
    assert.strictEqual(redactSecrets(target, "pr"), target)
    assert.strictEqual(
      redactSecrets("/v1/receivables/rcv_0123456789abcdef0123456789abcdef", "pr"),
      "/v1/receivables/rcv_0123456789abcdef0123456789abcdef"
    )
  })
})
