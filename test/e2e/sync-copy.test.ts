/**
 * The consumer's recipe rebuilds the copy exactly: the SDK's `sync`, run against the service
 * over HTTP while pairs sync, change, sync without a change, fail and are retried later, pause and
 * resume, leaves a copy that equals a fresh full load (`verified_since=all&expand[]=metadata`)
 * in every field of every receivable, `estimated_next_update_at` included, on either feed.
 */
import { assert, layer } from "@effect/vitest"
import { Context, DateTime, Deferred, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgDirectoryStore from "../../adapters/postgres/PgDirectoryStore.ts"
import * as PgPairStore from "../../adapters/postgres/PgPairStore.ts"
import { PartnerReceivables } from "../../client/src/mod.ts"
import { DirectoryStore } from "../../core/receivables/ports/DirectoryStore.ts"
import { PairStore } from "../../core/receivables/ports/PairStore.ts"
import type { PairId } from "../../core/shared/domain/Ids.ts"
import { type Fixture, insertFixture, keys } from "../support/Fixtures.ts"
import { makeIntegrationSync, document as scriptedDocument } from "../support/ScriptedSync.ts"
import { byId, consumer, fullLoad } from "../support/SdkCopy.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/Fixture") {}

const TestLayer = Layer.effect(TestFixture, insertFixture).pipe(
  Layer.provideMerge(Layer.merge(PgPairStore.layer, PgDirectoryStore.layer)),
  Layer.provideMerge(serverLayer)
)

const syncIntegration = makeIntegrationSync(0x5c0b00)

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("a copy kept by the SDK's sync", (it) => {
  for (const feed of ["events", "watermark"] as const) {
    it.effect(`(${feed}) equals a full load in every field, through concurrent syncs and rescheduling`, () =>
      Effect.gen(function* () {
        const f = yield* TestFixture
        const sql = yield* SqlClient.SqlClient
        const pairs = yield* PairStore
        const directory = yield* DirectoryStore
        const base = yield* BaseUrl
        const client = new PartnerReceivables({ apiKey: keys.orgA, baseUrl: base })
        // The fixture's pairs: two of vendor A1 that sync, and one of vendor A2 that is paused.
        const rows = yield* sql<{ id: string; vendor_id: string }>`
          SELECT id, vendor_id FROM integrations WHERE org_id = ${f.orgA} ORDER BY id`
        const active = rows.filter((row) => row.vendor_id === f.vendorA1).map((row) => row.id)
        const paused = rows.find((row) => row.vendor_id === f.vendorA2)!.id as PairId
        assert.lengthOf(active, 2)

        const document = (key: string, status: string) => scriptedDocument(`${feed}-${key}`, status, feed)
        const keysOf = (pair: number) => [1, 2, 3, 4].map((n) => `${pair}-${n}`)
        const portal = (pair: number, status: string) => keysOf(pair).map((key) => document(key, status))
        // A failed run: the pair's schedule moves to its retry, and nothing else changes.
        const fail = (integration: string) =>
          Effect.gen(function* () {
            const now = yield* DateTime.now
            const pair = yield* pairs.get(integration)
            yield* pairs.recordFailure(pair, {
              worker: "e2e",
              startedAt: now,
              error: "portal unavailable",
              retryAt: DateTime.add(now, { seconds: 30 })
            })
          }).pipe(Effect.orDie)
        const setPaused = (value: boolean) =>
          Effect.flatMap(DateTime.now, (at) => directory.setPaused(paused, value, at))
        const writer = (pair: number) => {
          const integration = active[pair]!
          return Effect.gen(function* () {
            yield* syncIntegration(integration, portal(pair, "Submitted"))
            yield* syncIntegration(integration, portal(pair, "Approved"))
            // Nothing changed: no event, no `updated_at`, only the next sync moves.
            yield* syncIntegration(integration, portal(pair, "Approved"))
            yield* fail(integration)
            yield* syncIntegration(integration, [...portal(pair, "Paid"), document(`${pair}-5`, "Submitted")])
            yield* syncIntegration(integration, [...portal(pair, "Paid"), document(`${pair}-5`, "Submitted")])
          })
        }

        // The consumer's first call starts; the pairs sync while it loads and pages on.
        yield* setPaused(true)
        const started = yield* Deferred.make<void>()
        const reader = consumer(client, feed, () => Deferred.doneUnsafe(started, Effect.void))
        yield* Effect.all(
          [
            Effect.all([reader.sync(), reader.sync(), reader.sync()], { discard: true }),
            Effect.andThen(
              Deferred.await(started),
              Effect.all([writer(0), writer(1), Effect.andThen(setPaused(false), setPaused(true))], {
                concurrency: "unbounded",
                discard: true
              })
            )
          ],
          { concurrency: "unbounded", discard: true }
        )

        // Once all is quiet, the schedules still move without a change: a sync that finds nothing
        // new, a failure, a resumed pair.
        yield* syncIntegration(active[0]!, [...portal(0, "Paid"), document("0-5", "Submitted")])
        yield* fail(active[1]!)
        yield* setPaused(false)
        const last = yield* reader.sync()
        if (feed === "events") assert.strictEqual(last.receivables, 0, "the last changes brought no receivable")

        const expected = yield* fullLoad(client)
        assert.isAtLeast(expected.size, 18)
        assert.deepStrictEqual(byId(reader.copy), byId(expected))
      })
    )
  }
})
