/** The request as the pipeline decides it once on arrival: its route, and its path as logs keep it. */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { makeApiKey, secretBytes } from "../../../../core/access/domain/ApiKey.ts"
import { requestFor } from "./Requests.ts"

describe("RequestContext", () => {
  it("decides the route once, exactly, and splits the query off", () => {
    const request = requestFor("/v1/receivables/rcv_1?expand[]=history")
    assert.strictEqual(request.route?.pattern, "/v1/receivables/:id")
    assert.strictEqual(request.query, "expand[]=history")
    assert.isUndefined(requestFor("/v1/receivables/").route)
    assert.isUndefined(requestFor("/V1/vendors").route)
    assert.isTrue(requestFor("/health").route?.probe)
  })

  it("mounts the dashboard's paths only when the dashboard is served", () => {
    assert.isUndefined(requestFor("/dashboard/keys").route)
    assert.isTrue(requestFor("/dashboard/keys", { dashboardMounted: true }).dashboard)
    assert.isFalse(requestFor("/v1/vendors", { dashboardMounted: true }).dashboard)
  })

  it("never shows a key in the path it keeps, wherever the key stands", () =>
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: secretBytes, maxLength: secretBytes }),
        fc.constantFrom("/v1/receivables/", "/dashboard/", "/x/"),
        (secret, prefix) => {
          const key = makeApiKey("pr", secret)
          const request = requestFor(`${prefix}${key}`, { dashboardMounted: true })
          assert.notInclude(request.shownPath, key)
        }
      )
    ))

  it("measures from arrival", () => {
    const request = requestFor("/v1/vendors")
    assert.strictEqual(request.millisUntil(request.startedNanos + 2_500_000n), 2.5)
  })
})
