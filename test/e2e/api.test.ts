/**
 * The v1 API over a real socket and a real PostgreSQL, against the fixture dataset: every common
 * query form of spec section 4.5, the list rules (order, paging, expansion, window), and the
 * errors of docs/decisions.md.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { OpenApi } from "effect/http-api"
import { Api } from "../../core/api/Api.ts"
import { type Fixture, insertFixture, keys } from "../support/Fixtures.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/Fixture") {}

const TestLayer = Layer.effect(TestFixture, insertFixture).pipe(Layer.provideMerge(serverLayer))

interface Answer {
  readonly status: number
  readonly headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field
  readonly body: any
}

const call = (path: string, options: { key?: string | null; method?: string } = {}) =>
  Effect.gen(function* () {
    const base = yield* BaseUrl
    const key = options.key === undefined ? keys.orgA : options.key
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, {
        method: options.method ?? "GET",
        headers: key === null ? {} : { authorization: `Bearer ${key}` }
      })
    )
    const text = yield* Effect.promise(() => response.text())
    return { status: response.status, headers: response.headers, body: text.length > 0 ? JSON.parse(text) : undefined }
  })

const ids = (answer: Answer) => answer.body.data.map((item: { id: string }) => item.id)

const assertError = (answer: Answer, status: number, type: string, code: string, param?: string) => {
  assert.strictEqual(answer.status, status, JSON.stringify(answer.body))
  assert.strictEqual(answer.body.error.type, type)
  assert.strictEqual(answer.body.error.code, code)
  assert.isString(answer.body.error.message)
  if (param === undefined) assert.notProperty(answer.body.error, "param")
  else assert.strictEqual(answer.body.error.param, param)
  assert.match(answer.headers.get("request-id") ?? "", /^req_[0-9a-f]{24}$/)
}

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("GET /v1/receivables", (it) => {
  it.effect("lists the organization's receivables oldest first, in the list envelope", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const answer = yield* call("/v1/receivables?verified_since=all")
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(answer.body.object, "list")
      assert.deepStrictEqual(
        ids(answer),
        f.receivablesA.map((r) => r.id)
      )
      assert.strictEqual(answer.body.total_count, f.receivablesA.length)
      assert.isFalse(answer.body.has_more)
      assert.match(answer.headers.get("request-id") ?? "", /^req_/)
    })
  )

  it.effect("list items carry the single receivable's fields, without history and metadata unless expanded", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const list = yield* call("/v1/receivables?verified_since=all&limit=1")
      const single = yield* call(`/v1/receivables/${f.receivablesA[0]!.id}`)
      const { history, metadata, ...fields } = single.body
      assert.deepStrictEqual(list.body.data[0], fields)
      assert.isArray(history)
      assert.deepStrictEqual(metadata, { payment_terms: "NET30", supplier_code: "S-2" })
      assert.deepStrictEqual(Object.keys(fields).sort(), [
        "amount_cents",
        "currency",
        "debtor",
        "detected_at",
        "due_date",
        "estimated_next_update_at",
        "id",
        "object",
        "po_number",
        "portal_status",
        "receivable_date",
        "status",
        "updated_at",
        "vendor",
        "vendor_receivable_id"
      ])
      assert.strictEqual(fields.portal_status, "Submitted")
      assert.match(fields.detected_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    })
  )

  it.effect("the common query forms of spec 4.5 filter, and combine", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const expect = (pred: (r: Fixture["receivablesA"][number]) => boolean) =>
        f.receivablesA.filter(pred).map((r) => r.id)
      const all = "verified_since=all"
      assert.deepStrictEqual(
        ids(yield* call(`/v1/receivables?${all}&vendor_id=${f.vendorA1}`)),
        expect((r) => r.vendor === f.vendorA1)
      )
      assert.deepStrictEqual(
        ids(yield* call(`/v1/receivables?${all}&debtor_id=${f.debtor1}`)),
        expect((r) => r.debtor === f.debtor1)
      )
      assert.deepStrictEqual(
        ids(yield* call(`/v1/receivables?${all}&vendor_id=${f.vendorA1}&debtor_id=${f.debtor2}`)),
        expect((r) => r.vendor === f.vendorA1 && r.debtor === f.debtor2)
      )
      assert.deepStrictEqual(
        ids(yield* call(`/v1/receivables?${all}&status=APPROVED`)),
        expect((r) => r.status === "APPROVED")
      )
      assert.deepStrictEqual(
        ids(yield* call(`/v1/receivables?${all}&vendor_id=${f.vendorA1}&debtor_id=${f.debtor1}&status=APPROVED`)),
        expect((r) => r.vendor === f.vendorA1 && r.debtor === f.debtor1 && r.status === "APPROVED")
      )
      const since = new Date(Date.now() - 12 * 3600_000).toISOString()
      assert.deepStrictEqual(
        ids(yield* call(`/v1/receivables?verified_since=${since}`)),
        expect((r) => r.updatedHoursAgo < 12)
      )
    })
  )

  it.effect("by default shows the receivables updated in the last 24 hours", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const answer = yield* call("/v1/receivables")
      const recent = f.receivablesA.filter((r) => r.updatedHoursAgo < 24).map((r) => r.id)
      // The fixture has receivables just inside (23.9 h) and just outside (24.1 h) the window.
      assert.isAbove(recent.length, 0)
      assert.isBelow(recent.length, f.receivablesA.length)
      assert.deepStrictEqual(ids(answer), recent)
      assert.strictEqual(answer.body.total_count, recent.length)
    })
  )

  it.effect("pages: limit 1 walks every item once, has_more until the last, a page past the end is empty", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const seen: Array<string> = []
      for (let page = 1; ; page++) {
        const answer = yield* call(`/v1/receivables?verified_since=all&limit=1&page=${page}`)
        assert.strictEqual(answer.body.total_count, f.receivablesA.length)
        seen.push(...ids(answer))
        assert.strictEqual(answer.body.has_more, page < f.receivablesA.length)
        if (!answer.body.has_more) break
      }
      assert.deepStrictEqual(
        seen,
        f.receivablesA.map((r) => r.id)
      )
      const past = yield* call("/v1/receivables?verified_since=all&limit=500&page=3")
      assert.deepStrictEqual(past.body.data, [])
      assert.strictEqual(past.body.total_count, f.receivablesA.length)
      assert.isFalse(past.body.has_more)
      assert.strictEqual((yield* call("/v1/receivables?verified_since=all&limit=500")).body.data.length, 8)
      assertError(yield* call("/v1/receivables?limit=501"), 400, "invalid_request_error", "parameter_invalid", "limit")
    })
  )

  it.effect("expands history (newest first, limited) and metadata, each or both", () =>
    Effect.gen(function* () {
      const first = (answer: Answer) => answer.body.data[0]
      const history = first(yield* call("/v1/receivables?verified_since=all&expand[]=history"))
      assert.notProperty(history, "metadata")
      assert.strictEqual(history.history.length, 10)
      assert.deepStrictEqual(history.history[0].changes, { amount_cents: { from: 11, to: 12 } })
      const times = history.history.map((entry: { changed_at: string }) => entry.changed_at)
      assert.deepStrictEqual(times, [...times].sort().reverse())

      const metadata = first(yield* call("/v1/receivables?verified_since=all&expand[]=metadata"))
      assert.notProperty(metadata, "history")
      assert.deepStrictEqual(metadata.metadata, { payment_terms: "NET30", supplier_code: "S-2" })

      const both = first(
        yield* call("/v1/receivables?verified_since=all&expand[]=history&expand[]=metadata&history_limit=3")
      )
      assert.strictEqual(both.history.length, 3)
      assert.property(both, "metadata")

      const none = first(yield* call("/v1/receivables?verified_since=all&expand[]=history&history_limit=0"))
      assert.deepStrictEqual(none.history, [])
    })
  )

  it.effect("every receivable of a pair shows the pair's next update; a paused pair shows none", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const answer = yield* call("/v1/receivables?verified_since=all")
      const byPair = new Map<string, Set<string | null>>()
      for (const item of answer.body.data) {
        const key = `${item.vendor.id}/${item.debtor.id}`
        byPair.set(key, (byPair.get(key) ?? new Set()).add(item.estimated_next_update_at))
      }
      for (const values of byPair.values()) assert.strictEqual(values.size, 1)
      assert.deepStrictEqual([...byPair.get(`${f.vendorA2}/${f.debtor1}`)!], [null])
    })
  )
})

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("GET /v1/receivables/:id", (it) => {
  it.effect("has history (default 10, newest first) and metadata; history_limit bounds it", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const id = f.receivablesA[0]!.id
      const answer = yield* call(`/v1/receivables/${id}`)
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(answer.body.object, "receivable")
      assert.strictEqual(answer.body.history.length, 10)
      assert.strictEqual((yield* call(`/v1/receivables/${id}?history_limit=100`)).body.history.length, 12)
      assert.deepStrictEqual((yield* call(`/v1/receivables/${id}?history_limit=0`)).body.history, [])
      const other = yield* call(`/v1/receivables/${f.receivablesA[1]!.id}`)
      assert.deepStrictEqual(other.body.history, [])
    })
  )

  it.effect("a malformed, unknown or other organization's id is the same 404", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      for (const id of ["rcv_123", "rcv_ffffffffffffffffffffffffffffffff", f.receivableB, "%20"]) {
        assertError(yield* call(`/v1/receivables/${id}`), 404, "invalid_request_error", "resource_missing", "id")
      }
      assert.strictEqual((yield* call(`/v1/receivables/${f.receivableB}`, { key: keys.orgB })).status, 200)
    })
  )
})

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("GET /v1/vendors and /v1/debtors", (it) => {
  it.effect("vendors: every vendor of the organization by name then id, with its earliest schedule", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const answer = yield* call("/v1/vendors")
      assert.strictEqual(answer.body.object, "list")
      assert.notProperty(answer.body, "has_more")
      assert.strictEqual(answer.body.total_count, 3)
      const names = answer.body.data.map((v: { name: string }) => v.name)
      assert.deepStrictEqual(names, ["Acme Supplies", "Acme Supplies", "Beta Parts"])
      const acme = answer.body.data.filter((v: { name: string }) => v.name === "Acme Supplies")
      assert.deepStrictEqual(
        acme.map((v: { id: string }) => v.id),
        [f.vendorA1, f.vendorA3].sort()
      )
      const a1 = answer.body.data.find((v: { id: string }) => v.id === f.vendorA1)
      const a1Receivables = yield* call(`/v1/receivables?verified_since=all&vendor_id=${f.vendorA1}`)
      const earliest = a1Receivables.body.data
        .map((r: { estimated_next_update_at: string }) => r.estimated_next_update_at)
        .sort()[0]
      assert.strictEqual(a1.estimated_next_update_at, earliest)
      assert.strictEqual(a1.object, "vendor")
      assert.isNull(answer.body.data.find((v: { id: string }) => v.id === f.vendorA3).estimated_next_update_at)
      // Vendor A2's only pair is paused.
      assert.isNull(answer.body.data.find((v: { id: string }) => v.id === f.vendorA2).estimated_next_update_at)
    })
  )

  it.effect("vendors?debtor_id: those with receivables to that debtor", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const answer = yield* call(`/v1/vendors?debtor_id=${f.debtor2}`)
      assert.deepStrictEqual(ids(answer), [f.vendorA1])
      assert.strictEqual(answer.body.total_count, 1)
    })
  )

  it.effect("debtors: only those the organization has receivables with, scheduled by its own pairs", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const answer = yield* call("/v1/debtors")
      assert.deepStrictEqual(ids(answer), [f.debtor1, f.debtor2])
      const globex = answer.body.data[0]
      assert.strictEqual(globex.object, "debtor")
      const pair = (yield* call(`/v1/receivables?verified_since=all&vendor_id=${f.vendorA1}&debtor_id=${f.debtor1}`))
        .body.data[0]
      // Org B's pair with this debtor is due sooner; org A must see its own schedule only.
      assert.strictEqual(globex.estimated_next_update_at, pair.estimated_next_update_at)
      assert.deepStrictEqual(ids(yield* call(`/v1/debtors?vendor_id=${f.vendorA2}`)), [f.debtor1])
    })
  )
})

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("scoping and errors", (it) => {
  it.effect("another organization's ids, in any filter, give empty lists", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      for (const path of [
        `/v1/receivables?verified_since=all&vendor_id=${f.vendorB1}`,
        `/v1/receivables?verified_since=all&debtor_id=${f.debtorB}`,
        `/v1/receivables?verified_since=all&vendor_id=${f.vendorB1}&debtor_id=${f.debtor1}`,
        `/v1/vendors?debtor_id=${f.debtorB}`,
        `/v1/debtors?vendor_id=${f.vendorB1}`
      ]) {
        const answer = yield* call(path)
        assert.strictEqual(answer.status, 200, path)
        assert.deepStrictEqual(answer.body.data, [], path)
        assert.strictEqual(answer.body.total_count, 0, path)
      }
      const b = yield* call("/v1/receivables?verified_since=all", { key: keys.orgB })
      assert.deepStrictEqual(ids(b), [f.receivableB, "rcv_000000000000000000000000000003e9"])
      const bVendors = yield* call("/v1/vendors", { key: keys.orgB })
      assert.deepStrictEqual(ids(bVendors), [f.vendorB1])
    })
  )

  it.effect("401: missing, malformed, unknown and revoked keys", () =>
    Effect.gen(function* () {
      for (const path of ["/v1/receivables", "/v1/receivables/rcv_1", "/v1/vendors", "/v1/debtors"]) {
        assertError(yield* call(path, { key: null }), 401, "authentication_error", "api_key_missing")
        assertError(yield* call(path, { key: "" }), 401, "authentication_error", "api_key_invalid")
        assertError(yield* call(path, { key: "pr_live_nope" }), 401, "authentication_error", "api_key_invalid")
        assertError(yield* call(path, { key: keys.revoked }), 401, "authentication_error", "api_key_revoked")
      }
      const base = yield* BaseUrl
      const basic = yield* Effect.promise(() =>
        fetch(`${base}/v1/vendors`, { headers: { authorization: `Basic ${btoa("a:b")}` } })
      )
      assert.strictEqual(basic.status, 401)
    })
  )

  it.effect("400: each bad value names its parameter; unknown parameters are refused", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["/v1/receivables?status=paid", "status"],
        ["/v1/receivables?status=", "status"],
        ["/v1/receivables?vendor_id=123", "vendor_id"],
        ["/v1/receivables?debtor_id=not-a-uuid", "debtor_id"],
        ["/v1/receivables?verified_since=yesterday", "verified_since"],
        ["/v1/receivables?verified_since=2026-11-21T03:46:13", "verified_since"],
        ["/v1/receivables?limit=0", "limit"],
        ["/v1/receivables?limit=501", "limit"],
        ["/v1/receivables?limit=ten", "limit"],
        ["/v1/receivables?page=0", "page"],
        ["/v1/receivables?page=-1", "page"],
        ["/v1/receivables?history_limit=101", "history_limit"],
        ["/v1/receivables?expand[]=everything", "expand[]"],
        ["/v1/receivables?limit=1&limit=2", "limit"],
        ["/v1/receivables/rcv_1?history_limit=-1", "history_limit"],
        ["/v1/vendors?debtor_id=x", "debtor_id"],
        ["/v1/debtors?vendor_id=x", "vendor_id"]
      ]
      for (const [path, param] of cases) {
        assertError(yield* call(path), 400, "invalid_request_error", "parameter_invalid", param)
      }
      for (const [path, param] of [
        [`/v1/receivables?vendorId=${f.vendorA1}`, "vendorId"],
        ["/v1/receivables?expand=history", "expand"],
        ["/v1/vendors?vendor_id=x", "vendor_id"],
        [`/v1/debtors?debtor_id=${f.debtor1}`, "debtor_id"],
        ["/v1/receivables/rcv_1?expand[]=history", "expand[]"]
      ] as const) {
        assertError(yield* call(path), 400, "invalid_request_error", "parameter_unknown", param)
      }
    })
  )

  it.effect("404 for unknown routes and 405 with Allow: GET for every other method", () =>
    Effect.gen(function* () {
      for (const path of ["/v2/receivables", "/v1/receivable", "/v1", "/"]) {
        assertError(yield* call(path), 404, "invalid_request_error", "resource_missing")
      }
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        for (const path of ["/v1/receivables", "/v1/receivables/rcv_1", "/v1/vendors", "/v1/debtors"]) {
          const answer = yield* call(path, { method })
          assertError(answer, 405, "invalid_request_error", "method_not_allowed")
          assert.strictEqual(answer.headers.get("allow"), "GET")
        }
      }
    })
  )

  it.effect("the OpenAPI document and the reference page need no key", () =>
    Effect.gen(function* () {
      const spec = yield* call("/v1/openapi.json", { key: null })
      assert.strictEqual(spec.status, 200)
      // The document served is the contract's (test/core/api/OpenApiDocument.test.ts holds its details).
      assert.deepStrictEqual(spec.body, OpenApi.fromApi(Api))
      const parameters = spec.body.paths["/v1/receivables"].get.parameters.filter(
        (p: { in: string }) => p.in === "query"
      )
      assert.deepStrictEqual(
        parameters.map((p: { name: string }) => p.name),
        [
          "vendor_id",
          "debtor_id",
          "status",
          "verified_since",
          "expand[]",
          "history_limit",
          "page",
          "limit",
          "starting_after"
        ]
      )
      assert.includeMembers(Object.keys(spec.body.paths["/v1/receivables"].get.responses), ["200", "400", "401", "429"])
      const limit = parameters.find((p: { name: string }) => p.name === "limit")
      assert.strictEqual(limit.schema.default, 100)
      assert.match(limit.description, /1 to 500/)
      const base = yield* BaseUrl
      const docs = yield* Effect.promise(() => fetch(`${base}/docs`))
      assert.strictEqual(docs.status, 200)
      assert.match(docs.headers.get("content-type") ?? "", /text\/html/)
    })
  )
})
