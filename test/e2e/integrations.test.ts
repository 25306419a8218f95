/**
 * `GET /v1/integrations` over a real socket and a real PostgreSQL, against the fixture's pairs
 * with runs recorded by the real pair store (a sync that succeeded, one that failed): each pair's
 * kind, state, last run and next update, never its configuration; filters, ordering, scoping to
 * the caller's organization, refusals in the documented error shape, and the OpenAPI document.
 */
import { assert, layer } from "@effect/vitest"
import { Context, DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgPairStore from "../../adapters/postgres/PgPairStore.ts"
import { consumerMessages } from "../../core/receivables/domain/RunError.ts"
import { PairStore } from "../../core/receivables/ports/PairStore.ts"
import { type Fixture, insertFixture, keys } from "../support/Fixtures.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/Fixture") {}

/** The fixture, with a pair's configuration naming where its secret lives and two runs recorded. */
const prepared = Effect.gen(function* () {
  const f = yield* insertFixture
  const sql = yield* SqlClient.SqlClient
  const store = yield* PairStore
  const pairOf = (vendor: string, debtor: string) =>
    Effect.flatMap(
      sql<{ id: string }>`SELECT id FROM integrations WHERE vendor_id = ${vendor} AND debtor_id = ${debtor}`,
      ([row]) => store.get(row!.id)
    )
  const succeeded = yield* pairOf(f.vendorA1, f.debtor1)
  yield* sql`UPDATE integrations SET config = ${JSON.stringify({ token: { env: "PORTAL_TOKEN_SECRET" } })}::jsonb
    WHERE id = ${succeeded.id}`
  yield* Effect.scoped(
    Effect.gen(function* () {
      const session = yield* store.session(succeeded, "e2e", yield* DateTime.now)
      const counts = { fetched: 5, created: 2, updated: 1, unchanged: 1, quarantined: 1 }
      yield* session.finish({ counts, quarantine: [], nextSyncAt: DateTime.add(session.at, { hours: 3 }) })
    })
  )
  const failed = yield* pairOf(f.vendorA1, f.debtor2)
  const now = yield* DateTime.now
  yield* store.recordFailure(failed, {
    worker: "e2e",
    startedAt: DateTime.subtract(now, { seconds: 2 }),
    error: "the portal answered 503 Service Unavailable",
    retryAt: DateTime.add(now, { seconds: 30 })
  })
  return f
}).pipe(Effect.orDie)

const TestLayer = Layer.effect(TestFixture, prepared).pipe(
  Layer.provide(PgPairStore.layer),
  Layer.provideMerge(serverLayer)
)

interface Answer {
  readonly status: number
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field
  readonly body: any
}

const call = (path: string, options: { readonly key?: string | null; readonly method?: string } = {}) =>
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
    return { status: response.status, text, body: JSON.parse(text) } as Answer
  })

const ids = (answer: Answer): ReadonlyArray<string> => answer.body.data.map((item: { id: string }) => item.id)
const pairKeys = (answer: Answer) =>
  answer.body.data.map(
    (item: { vendor: { id: string }; debtor: { id: string } }) => `${item.vendor.id}/${item.debtor.id}`
  )

const assertError = (answer: Answer, status: number, type: string, code: string, param?: string) => {
  assert.strictEqual(answer.status, status, answer.text)
  assert.deepStrictEqual(Object.keys(answer.body), ["error"])
  assert.strictEqual(answer.body.error.type, type)
  assert.strictEqual(answer.body.error.code, code)
  assert.isString(answer.body.error.message)
  if (param === undefined) assert.notProperty(answer.body.error, "param")
  else assert.strictEqual(answer.body.error.param, param)
}

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("GET /v1/integrations", (it) => {
  it.effect("lists the organization's pairs by vendor name, debtor name, then id, in the list envelope", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const answer = yield* call("/v1/integrations")
      assert.strictEqual(answer.status, 200, answer.text)
      assert.deepStrictEqual(Object.keys(answer.body), ["object", "data", "total_count"])
      assert.strictEqual(answer.body.object, "list")
      assert.strictEqual(answer.body.total_count, 3)
      // Acme Supplies with Globex and Initech, then Beta Parts with Globex.
      assert.deepStrictEqual(pairKeys(answer), [
        `${f.vendorA1}/${f.debtor1}`,
        `${f.vendorA1}/${f.debtor2}`,
        `${f.vendorA2}/${f.debtor1}`
      ])
      for (const item of answer.body.data) {
        assert.deepStrictEqual(Object.keys(item), [
          "id",
          "object",
          "vendor",
          "debtor",
          "connector",
          "state",
          "last_sync",
          "estimated_next_update_at"
        ])
        assert.strictEqual(item.object, "integration")
        assert.strictEqual(item.connector, "simulator")
      }
      assert.deepStrictEqual(answer.body.data[0].vendor, { id: f.vendorA1, name: "Acme Supplies" })
      assert.deepStrictEqual(answer.body.data[0].debtor, { id: f.debtor1, name: "Globex" })
    })
  )

  it.effect("each pair's state and last run: succeeded and active, failed and failing, never run and paused", () =>
    Effect.gen(function* () {
      const [succeeded, failed, paused] = (yield* call("/v1/integrations")).body.data
      assert.strictEqual(succeeded.state, "active")
      assert.deepInclude(succeeded.last_sync, {
        outcome: "succeeded",
        created: 2,
        updated: 1,
        unchanged: 1,
        quarantined: 1,
        error: null,
        error_class: null
      })
      assert.deepStrictEqual(Object.keys(succeeded.last_sync), [
        "started_at",
        "finished_at",
        "outcome",
        "created",
        "updated",
        "unchanged",
        "quarantined",
        "error",
        "error_class"
      ])
      assert.match(succeeded.last_sync.started_at, iso)
      assert.match(succeeded.last_sync.finished_at, iso)

      assert.strictEqual(failed.state, "failing")
      assert.deepInclude(failed.last_sync, {
        outcome: "failed",
        created: 0,
        // The recorded detail is the operators'; clients get its class and the class's sentence.
        error: consumerMessages.portal_error,
        error_class: "portal_error"
      })
      assert.match(failed.estimated_next_update_at, iso)

      assert.strictEqual(paused.state, "paused")
      assert.isNull(paused.last_sync)
      assert.isNull(paused.estimated_next_update_at)
    })
  )

  it.effect("a pair's next update is the one its receivables show, and its configuration never shows", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const answer = yield* call("/v1/integrations")
      for (const item of answer.body.data) {
        const receivables = yield* call(
          `/v1/receivables?verified_since=all&vendor_id=${item.vendor.id}&debtor_id=${item.debtor.id}`
        )
        for (const r of receivables.body.data)
          assert.strictEqual(r.estimated_next_update_at, item.estimated_next_update_at)
      }
      assert.notInclude(answer.text, "PORTAL_TOKEN_SECRET")
      assert.notInclude(answer.text, "config")
      assert.notInclude(answer.text, "token")
      // The succeeded sync scheduled its pair three hours on.
      const succeeded = answer.body.data.find(
        (item: { vendor: { id: string }; debtor: { id: string } }) =>
          item.vendor.id === f.vendorA1 && item.debtor.id === f.debtor1
      )
      const inHours =
        (Date.parse(succeeded.estimated_next_update_at) - Date.parse(succeeded.last_sync.finished_at)) / 3_600_000
      assert.closeTo(inHours, 3, 0.01)
    })
  )

  it.effect("filters by vendor and debtor; another organization's or an unknown id gives an empty list", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      assert.deepStrictEqual(pairKeys(yield* call(`/v1/integrations?vendor_id=${f.vendorA1}`)), [
        `${f.vendorA1}/${f.debtor1}`,
        `${f.vendorA1}/${f.debtor2}`
      ])
      assert.deepStrictEqual(pairKeys(yield* call(`/v1/integrations?debtor_id=${f.debtor1}`)), [
        `${f.vendorA1}/${f.debtor1}`,
        `${f.vendorA2}/${f.debtor1}`
      ])
      assert.deepStrictEqual(pairKeys(yield* call(`/v1/integrations?vendor_id=${f.vendorA2}&debtor_id=${f.debtor1}`)), [
        `${f.vendorA2}/${f.debtor1}`
      ])
      for (const query of [
        `vendor_id=${f.vendorB1}`,
        `debtor_id=${f.debtorB}`,
        `vendor_id=${f.vendorA3}`,
        "debtor_id=00000000-0000-4000-8000-000000000000"
      ]) {
        const answer = yield* call(`/v1/integrations?${query}`)
        assert.strictEqual(answer.status, 200, query)
        assert.deepStrictEqual(answer.body, { object: "list", data: [], total_count: 0 }, query)
      }
      // Organization B sees its own pairs only, the shared debtor's included.
      const theirs = yield* call("/v1/integrations", { key: keys.orgB })
      assert.deepStrictEqual(pairKeys(theirs), [`${f.vendorB1}/${f.debtor1}`, `${f.vendorB1}/${f.debtorB}`])
      const ours = ids(yield* call("/v1/integrations"))
      assert.isTrue(ids(theirs).every((id) => !ours.includes(id)))
    })
  )

  it.effect("refuses bad values, unknown parameters, missing keys and writes in the documented shape", () =>
    Effect.gen(function* () {
      assertError(
        yield* call("/v1/integrations?vendor_id=x"),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "vendor_id"
      )
      assertError(
        yield* call("/v1/integrations?debtor_id=1"),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "debtor_id"
      )
      assertError(
        yield* call("/v1/integrations?state=paused"),
        400,
        "invalid_request_error",
        "parameter_unknown",
        "state"
      )
      assertError(yield* call("/v1/integrations", { key: null }), 401, "authentication_error", "api_key_missing")
      const write = yield* call("/v1/integrations", { method: "POST" })
      assertError(write, 405, "invalid_request_error", "method_not_allowed")
      assertError(yield* call("/v1/integrations/"), 404, "invalid_request_error", "resource_missing")
    })
  )

  it.effect("the OpenAPI document describes the endpoint, its filters and its fields", () =>
    Effect.gen(function* () {
      const spec = (yield* call("/v1/openapi.json", { key: null })).body
      const list = spec.paths["/v1/integrations"].get
      assert.match(list.description, /never its configuration/)
      assert.deepStrictEqual(
        list.parameters.filter((p: { in: string }) => p.in === "query").map((p: { name: string }) => p.name),
        ["vendor_id", "debtor_id"]
      )
      const item = spec.components.schemas.Integration.properties
      for (const field of ["connector", "state", "last_sync", "estimated_next_update_at"]) {
        assert.isString(item[field].description, field)
      }
      const receivables = spec.paths["/v1/receivables"].get
      const startingAfter = receivables.parameters.find((p: { name: string }) => p.name === "starting_after")
      assert.match(startingAfter.description, /Keyset paging/)
      assert.match(receivables.description, /next_verified_since/)
      const watermark = spec.components.schemas.ReceivableList.properties.next_verified_since
      assert.match(watermark.description, /verified_since/)
    })
  )
})
