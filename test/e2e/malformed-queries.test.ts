/**
 * 10,000 generated malformed query strings against every endpoint, over real HTTP: wrong types,
 * repeated parameters, huge numbers, unicode, empty values, unknown names. Each answer must be a
 * 400 or 404 in the documented error shape, never a 5xx and never a 200.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { insertFixture, keys } from "../support/Fixtures.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

const endpoints = [
  {
    path: "/v1/receivables",
    params: ["vendor_id", "debtor_id", "status", "verified_since", "expand[]", "history_limit", "page", "limit"]
  },
  { path: "/v1/receivables/rcv_0123456789abcdef0123456789abcdef", params: ["history_limit"] },
  { path: "/v1/vendors", params: ["debtor_id"] },
  { path: "/v1/debtors", params: ["vendor_id"] }
] as const

const junk = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom("", " ", "null", "undefined", "[]", "{}", "true", "NaN", "Infinity", "-0", "0x10", "1e3", "💸", "é"),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.double().map(String)
)

const isWholeIn = (min: number, max: number) => (text: string) =>
  /^\d{1,16}$/.test(text) && Number(text) >= min && Number(text) <= max
const isUuid = (text: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(text)

// A value a parameter refuses: anything the generator makes that its rule does not accept.
const valid: Record<string, (text: string) => boolean> = {
  vendor_id: isUuid,
  debtor_id: isUuid,
  status: (text) => ["PENDING", "APPROVED", "PAID", "SOLD", "DISPUTED", "ACKNOWLEDGED"].includes(text),
  verified_since: (text) => text === "all" || /^\d{4}-\d{2}-\d{2}/.test(text),
  "expand[]": (text) => text === "history" || text === "metadata",
  history_limit: isWholeIn(0, 100),
  page: isWholeIn(1, Number.MAX_SAFE_INTEGER),
  limit: isWholeIn(1, 500)
}

const unknownName = fc
  .oneof(
    fc.constantFrom("vendorId", "Status", "LIMIT", "expand", "expand[0]", "q", "offset", "cursor", "vendor_íd", "🙂"),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 })
  )
  .filter((name) => !Object.hasOwn(valid, name))

type Pair = readonly [string, string]

// One fault guaranteed per query (an unknown name, a refused value, or a repeated scalar), mixed
// among well-formed parameters.
const malformedQuery = (params: ReadonlyArray<string>) => {
  const fault = fc.oneof(
    fc.tuple(unknownName, junk).map((pair): ReadonlyArray<Pair> => [pair]),
    fc
      .tuple(fc.constantFrom(...params), junk)
      .filter(([name, value]) => !valid[name]!(value))
      .map((pair): ReadonlyArray<Pair> => [pair]),
    fc.constantFrom(...params.filter((name) => name !== "expand[]")).map(
      (name): ReadonlyArray<Pair> => [
        [name, "1"],
        [name, "2"]
      ]
    )
  )
  const wellFormed = fc.subarray(
    [
      ["history_limit", "5"],
      ["limit", "10"],
      ["page", "1"],
      ["verified_since", "all"],
      ["status", "PAID"]
    ] as Array<Pair>,
    { maxLength: 2 }
  )
  return fc
    .tuple(wellFormed, fault)
    .map(([good, bad]) => [...good.filter(([name]) => params.includes(name) && !bad.some(([b]) => b === name)), ...bad])
}

const request = fc.constantFrom(...endpoints).chain((endpoint) =>
  malformedQuery(endpoint.params).map((pairs) => ({
    path: endpoint.path,
    query: pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join("&")
  }))
)

const TestLayer = Layer.effectDiscard(insertFixture).pipe(Layer.provideMerge(serverLayer))

layer(TestLayer, { timeout: 300_000, excludeTestServices: true })("malformed queries", (it) => {
  it.effect("10,000 of them: every answer is a 400 or 404 in the documented shape, never a 5xx", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const statuses = new Map<number, number>()
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(request, async ({ path, query }) => {
            const response = await fetch(`${base}${path}?${query}`, {
              headers: { authorization: `Bearer ${keys.orgA}` }
            })
            const body = (await response.json()) as { error: { type: string; code: string; message: unknown } }
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
            assert.include([400, 404], response.status, `${path}?${query} -> ${JSON.stringify(body)}`)
            assert.hasAllKeys(body, ["error"])
            assert.strictEqual(body.error.type, "invalid_request_error")
            assert.include(["parameter_invalid", "parameter_unknown", "resource_missing"], body.error.code)
            assert.isString(body.error.message)
            assert.match(response.headers.get("request-id") ?? "", /^req_[0-9a-f]{24}$/)
          }),
          { numRuns: 10_000 }
        )
      )
      assert.strictEqual(
        [...statuses.values()].reduce((a, b) => a + b, 0),
        10_000
      )
    })
  )
})
