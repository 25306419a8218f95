/**
 * What `If-None-Match` does on the receivables list, as the documentation says: `*` matches any
 * current answer (RFC 9110, 13.1.2), so it is a 304 on every GET, the list included; a tag held
 * from the list matches while its `next_verified_since` stands still, which a running sync of one
 * of the organization's pairs holds back, and no longer once that sync has ended.
 */
import { assert, layer } from "@effect/vitest"
import { Context, DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgPairStore from "../../adapters/postgres/PgPairStore.ts"
import { PairStore } from "../../core/receivables/ports/PairStore.ts"
import { type Fixture, insertFixture, keys } from "../support/Fixtures.ts"
import { type RawAnswer, rawGet } from "../support/RawHttp.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/ConditionalFixture") {}

const TestLayer = Layer.effect(TestFixture, insertFixture).pipe(
  Layer.provideMerge(PgPairStore.layer),
  Layer.provideMerge(serverLayer)
)

const get = (path: string, headers: Record<string, string> = {}) =>
  Effect.flatMap(BaseUrl, (base) =>
    Effect.promise(() => rawGet(base, path, { authorization: `Bearer ${keys.orgA}`, ...headers }))
  )

const etag = (answer: RawAnswer) => answer.headers.etag as string

const list = "/v1/receivables?verified_since=all"

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("If-None-Match on the receivables list", (it) => {
  it.effect("`*` is a 304 on every GET, the receivables list included", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const paths = [
        list,
        "/v1/receivables",
        `/v1/receivables/${f.receivablesA[0]!.id}`,
        "/v1/vendors",
        "/v1/debtors",
        "/v1/integrations",
        "/v1/events"
      ]
      for (const path of paths) {
        assert.strictEqual((yield* get(path)).status, 200, path)
        const answer = yield* get(path, { "if-none-match": "*" })
        assert.strictEqual(answer.status, 304, path)
        assert.strictEqual(answer.body, "", path)
      }
    })
  )

  it.effect("a held tag of the list matches while a sync holds its watermark back, and not after", () =>
    Effect.gen(function* () {
      const f = yield* TestFixture
      const store = yield* PairStore
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ id: string }>`SELECT id FROM integrations WHERE org_id = ${f.orgA} ORDER BY id LIMIT 1`
      const pair = yield* store.get(row!.id)
      const held = yield* Effect.scoped(
        Effect.gen(function* () {
          // A sync of one of the organization's pairs runs: its mark holds `next_verified_since`.
          yield* store.session(pair, "e2e", yield* DateTime.now)
          const first = yield* get(list)
          assert.strictEqual(first.status, 200)
          const again = yield* get(list, { "if-none-match": etag(first) })
          assert.strictEqual(again.status, 304, "the same watermark, the same answer")
          return etag(first)
        })
      )
      // The sync ended (unfinished, so nothing changed but the watermark, which moves on).
      const after = yield* get(list, { "if-none-match": held })
      assert.strictEqual(after.status, 200)
      assert.notStrictEqual(etag(after), held)
    })
  )
})
