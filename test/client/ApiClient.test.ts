/**
 * The Effect flavour (`core/api/ApiClient.ts`) against the running service: the contract's typed
 * client with the key supplied as a bearer token, decoding resources and the contract's errors.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import * as ApiClient from "../../core/api/ApiClient.ts"
import { AuthenticationFailed, ResourceMissing } from "../../core/api/Errors.ts"
import { type Fixture, insertFixture, keys } from "../support/Fixtures.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/Fixture") {}

const TestLayer = Layer.effect(TestFixture, insertFixture).pipe(Layer.provideMerge(serverLayer))

const client = (key: string) =>
  Effect.gen(function* () {
    const baseUrl = yield* BaseUrl
    return yield* ApiClient.make({ baseUrl, apiKey: Redacted.make(key) }).pipe(Effect.provide(FetchHttpClient.layer))
  })

// The contract's query schemas give page, limit and history_limit their defaults when decoding,
// so the typed client, which takes decoded values, asks for them.
const listAll = { verified_since: "all", history_limit: 10, page: 1, limit: 100 } as const

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("ApiClient", (it) => {
  it.effect("reads every endpoint with the key as a bearer token, decoded by the contract", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const api = yield* client(keys.orgA)
      const page = yield* api.receivables.list({ query: listAll })
      assert.deepStrictEqual(
        page.data.map((r) => r.id),
        f.receivablesA.map((r) => r.id)
      )
      assert.isFalse(page.hasMore)
      const first = f.receivablesA[0]!.id
      const one = yield* api.receivables.get({ params: { id: first }, query: { history_limit: 2 } })
      assert.strictEqual(one.history?.length, 2)
      const vendors = yield* api.vendors.list({ query: { debtor_id: f.debtor1 as never } })
      assert.deepStrictEqual(vendors.data.map((v) => v.name).sort(), ["Acme Supplies", "Beta Parts"])
      const debtors = yield* api.debtors.list({ query: {} })
      assert.strictEqual(debtors.totalCount, 2)
      const integrations = yield* api.integrations.list({ query: {} })
      assert.strictEqual(integrations.totalCount, 3)
      const events = yield* api.events.list({ query: { after: 0, limit: 10 } })
      assert.strictEqual(events.latest_sequence, 0)
    })
  )

  it.effect("fails with the contract's errors", () =>
    Effect.gen(function* () {
      const api = yield* client(keys.orgA)
      const missing = yield* api.receivables
        .get({ params: { id: "rcv_nope" }, query: { history_limit: 0 } })
        .pipe(Effect.flip)
      assert.instanceOf(missing, ResourceMissing)
      assert.strictEqual(missing.error.param, "id")
      const revoked = yield* (yield* client(keys.revoked)).vendors.list({ query: {} }).pipe(Effect.flip)
      assert.instanceOf(revoked, AuthenticationFailed)
      assert.strictEqual(revoked.error.code, "api_key_revoked")
    })
  )
})
