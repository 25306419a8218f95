/**
 * An `http-json` integration's `baseUrl` carries no credentials: a configuration is stored and
 * shown as it is, so `https://user:PASS@host/` is refused at creation, naming the field and the
 * rule, and the refusal never repeats the password.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import * as HttpJson from "../../../adapters/portals/http-json/HttpJsonConnector.ts"
import { validateConfig } from "../../../core/receivables/ports/PortalConnector.ts"
import { configFor } from "./fixtures/http-json.ts"

const notation = { decimalSeparator: ".", groupsThousands: false } as const
const withBase = (baseUrl: string) => ({ ...configFor("https://portal.example.com", "page", notation), baseUrl })

// What a URL's userinfo may hold once percent-encoded: letters, digits and encoded anything.
const userinfoPart = fc.string({ minLength: 1, maxLength: 12 }).map(encodeURIComponent)

describe("http-json baseUrl", () => {
  it("refuses a user and password in the URL, naming the field and the rule, never the password", () =>
    fc.assert(
      fc.property(
        userinfoPart,
        fc.option(userinfoPart, { nil: undefined }),
        fc.constantFrom("https://portal.example.com/api/", "http://127.0.0.1:8080/", "https://[::1]/"),
        (user, password, base) => {
          const url = new URL(base)
          const baseUrl = `${url.protocol}//${user}${password === undefined ? "" : `:${password}`}@${url.host}${url.pathname}`
          const refused = validateConfig(HttpJson.connector, withBase(baseUrl))
          assert.isTrue(Result.isFailure(refused), baseUrl)
          if (Result.isSuccess(refused)) return
          assert.strictEqual(refused.failure.field, "baseUrl")
          assert.include(refused.failure.message, "without credentials")
          assert.include(refused.failure.message, "secrets are references")
          if (password !== undefined && password.length > 3) assert.notInclude(refused.failure.message, password)
        }
      )
    ))

  it("accepts the same URLs without credentials", () => {
    for (const baseUrl of ["https://portal.example.com/api/", "http://127.0.0.1:8080/", "https://[::1]/"]) {
      assert.isTrue(Result.isSuccess(validateConfig(HttpJson.connector, withBase(baseUrl))), baseUrl)
    }
  })

  it("refuses the form the probe stored", () => {
    const refused = validateConfig(HttpJson.connector, withBase("http://user:PASS@127.0.0.1/"))
    assert.deepStrictEqual(Result.isFailure(refused) ? refused.failure : undefined, {
      field: "baseUrl",
      message: "Expected a URL without credentials (no user:password@): secrets are references, given in auth"
    })
  })
})
