/**
 * A pair's sync session over PostgreSQL holds nothing across transactions, so the service can run
 * behind a pooler in transaction mode: no session advisory lock while it runs; its syncs in
 * flight are a count on the pair's row, and a crashed run's count, never taken back, is started
 * anew by the next sync once the crashed run's mark is stale.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Deferred, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgPairStore from "../../../adapters/postgres/PgPairStore.ts"
import { PairStore } from "../../../core/receivables/ports/PairStore.ts"
import { noCounts } from "../../contracts/PairStore.harness.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const newPair = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Pooler') RETURNING id`
  const [vendor] = yield* sql<{ id: string }>`INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'V') RETURNING id`
  const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('D') RETURNING id`
  const [pair] = yield* sql<{ id: string }>`
    INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at)
    VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, 'simulator', now()) RETURNING id`
  return yield* (yield* PairStore).get(pair!.id)
}).pipe(Effect.orDie)

const inFlight = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ count: number; mark: string | null }>`
      SELECT syncs_in_flight AS count, sync_started_at::text AS mark FROM integrations WHERE id = ${id}`
  ).pipe(
    Effect.map(([row]) => row!),
    Effect.orDie
  )

const finishNow = Effect.fnUntraced(function* (id: string) {
  const store = yield* PairStore
  const session = yield* store.session(yield* store.get(id), "test", yield* DateTime.now)
  yield* session.finish({ counts: noCounts, quarantine: [], nextSyncAt: DateTime.add(session.at, { hours: 1 }) })
}, Effect.scoped)

layer(PgPairStore.layer.pipe(Layer.provideMerge(TestDatabase.layer)), { excludeTestServices: true })(
  "a pair's sync session behind a pooler",
  (it) => {
    it.effect("an open session holds no advisory lock; its pair counts it in flight until it ends", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const store = yield* PairStore
        const pair = yield* newPair
        const opened = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const fiber = yield* Effect.forkChild(
          Effect.scoped(
            Effect.gen(function* () {
              const session = yield* store.session(pair, "test", yield* DateTime.now)
              yield* Deferred.succeed(opened, undefined)
              yield* Deferred.await(release)
              yield* session.finish({
                counts: noCounts,
                quarantine: [],
                nextSyncAt: DateTime.add(session.at, { hours: 1 })
              })
            })
          )
        )
        yield* Deferred.await(opened)
        const [locks] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'`
        assert.strictEqual(locks!.n, 0)
        const running = yield* inFlight(pair.id)
        assert.strictEqual(running.count, 1)
        assert.isNotNull(running.mark)
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(fiber)
        assert.deepStrictEqual(yield* inFlight(pair.id), { count: 0, mark: null })
      })
    )

    it.effect("a crashed run's stale count is started anew by the next sync, which clears the mark at its end", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const pair = yield* newPair
        // What a worker killed between its mark and its end leaves: counted in, never out.
        yield* sql`
          UPDATE integrations SET syncs_in_flight = 1, sync_started_at = now() - interval '11 minutes'
          WHERE id = ${pair.id}`
        yield* finishNow(pair.id)
        assert.deepStrictEqual(yield* inFlight(pair.id), { count: 0, mark: null })
      })
    )

    it.effect("a fresh count is joined, not restarted: the mark stays until the last sync in flight ends", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const pair = yield* newPair
        // Another sync of the pair, marked a minute ago, has yet to take the pair's lock.
        yield* sql`
          UPDATE integrations SET syncs_in_flight = 1, sync_started_at = now() - interval '1 minute'
          WHERE id = ${pair.id}`
        const before = yield* inFlight(pair.id)
        yield* finishNow(pair.id)
        assert.deepStrictEqual(yield* inFlight(pair.id), before)
      })
    )
  }
)
