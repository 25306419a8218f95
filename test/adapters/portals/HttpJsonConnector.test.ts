import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { connector } from "../../../adapters/portals/http-json/HttpJsonConnector.ts"
import { nextLink, retryAfterSeconds } from "../../../adapters/portals/portal-client/PortalHttp.ts"
import { pairToFetch, sampleDocuments } from "../../support/conformance/Conformance.ts"
import { json, mockPortal } from "../../support/MockPortal.ts"
import { configFor } from "./fixtures/http-json.ts"

const notation = { decimalSeparator: ".", groupsThousands: false } as const
const item = { id: 7, number: "INV-7", total: "10.00", currency: "USD", issued_on: "2026-11-02", state: "open" }

describe("http-json", () => {
  it.effect("sends bearer and basic credentials from their secret references", () =>
    Effect.gen(function* () {
      const seen: Array<string | undefined> = []
      const portal = yield* mockPortal((request) => {
        seen.push(request.headers.authorization)
        return json({ data: [item] })
      })
      const base = { ...configFor(portal.origin, "page", notation), pagination: { style: "none" } }
      const environment = { PORTAL_TOKEN: "tok-123", PORTAL_PASSWORD: "pa:ss" }
      yield* Stream.runCollect(
        connector.fetch(pairToFetch({ ...base, auth: { type: "bearer", token: { env: "PORTAL_TOKEN" } } }, environment))
      )
      yield* Stream.runCollect(
        connector.fetch(
          pairToFetch(
            { ...base, auth: { type: "basic", username: "acme", password: { env: "PORTAL_PASSWORD" } } },
            environment
          )
        )
      )
      assert.deepStrictEqual(seen, ["Bearer tok-123", `Basic ${Buffer.from("acme:pa:ss").toString("base64")}`])
    })
  )

  it.effect(
    "follows a redirect within the portal's origin, and keeps other item fields as metadata, nested ones as JSON",
    () =>
      Effect.gen(function* () {
        const portal = yield* mockPortal((request, url) =>
          url.pathname === "/api/v2/invoices"
            ? { status: 301, headers: { location: "/api/v3/invoices" } }
            : request.headers["x-api-key"] === "k"
              ? json({
                  data: [{ ...item, payment_terms: "NET30", buyer: { name: "Globex", tags: ["a"] }, priority: 2 }]
                })
              : { status: 401 }
        )
        const config = { ...configFor(portal.origin, "page", notation), pagination: { style: "none" } }
        const [document] = yield* Stream.runCollect(connector.fetch(pairToFetch(config, { GLOBEX_PORTAL_KEY: "k" })))
        assert.deepStrictEqual(document!.metadata, {
          payment_terms: "NET30",
          buyer: '{"name":"Globex","tags":["a"]}',
          priority: "2"
        })
        assert.deepStrictEqual(
          portal.requests.map((url) => url.pathname),
          ["/api/v2/invoices", "/api/v3/invoices"]
        )
      })
  )

  it.effect("stops a portal that ignores its paging parameters instead of polling forever", () =>
    Effect.gen(function* () {
      const documents = sampleDocuments(3, [["open", "PENDING"]], notation)
      const portal = yield* mockPortal(() =>
        json({ data: [0, 1, 2].map((i) => ({ ...item, id: Number(documents.at(i).key) })) })
      )
      const config = {
        ...configFor(portal.origin, "page", notation),
        pagination: { style: "page", pageParam: "page", sizeParam: "size", size: 3 }
      }
      const failure = yield* Effect.flip(
        Stream.runCollect(connector.fetch(pairToFetch(config, { GLOBEX_PORTAL_KEY: "k" })))
      )
      assert.deepStrictEqual([failure.retryable, portal.requests.length], [false, 2])
      assert.match(failure.message, /repeats earlier items/)
    })
  )

  it("reads Retry-After in seconds or as a date, and the next link among several", () => {
    assert.strictEqual(retryAfterSeconds("120"), 120)
    assert.strictEqual(retryAfterSeconds("Sat, 21 Nov 2026 12:01:00 GMT", Date.parse("2026-11-21T12:00:00Z")), 60)
    assert.isUndefined(retryAfterSeconds("soon"))
    const base = new URL("https://portal.example/api/invoices?page=1")
    assert.strictEqual(
      nextLink('<https://portal.example/api/invoices?page=1>; rel="first", </api/invoices?page=2>; rel="next"', base)
        ?.href,
      "https://portal.example/api/invoices?page=2"
    )
    assert.isUndefined(nextLink('<https://portal.example/api/invoices?page=1>; rel="prev"', base))
  })
})
