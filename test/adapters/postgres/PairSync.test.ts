/**
 * The sync engine against a real PostgreSQL with the simulator: a pair follows its portal over
 * simulated time, history replays back to earlier states, a statement failing inside the
 * transaction or its connection killed leaves the pair exactly as it was, concurrent syncs of one
 * pair serialize without duplicates (the waiting one's in-flight mark surviving the first's end),
 * and a bulk load refreshes the planner's statistics. What the
 * engine decides without the database (retries, deadlines, the scheduler) is tested on the memory
 * store in `test/core/services/`.
 */
import { assert, layer } from "@effect/vitest"
import { Clock, DateTime, Deferred, Duration, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as RandomIds from "../../../adapters/ids/RandomIds.ts"
import * as Connectors from "../../../adapters/portals/Connectors.ts"
import * as Simulator from "../../../adapters/portals/simulator/SimulatorConnector.ts"
import * as PgPairStore from "../../../adapters/postgres/PgPairStore.ts"
import * as EnvironmentSecrets from "../../../adapters/secrets/EnvironmentSecrets.ts"
import { revertChanges } from "../../../core/receivables/domain/History.ts"
import { planPairSync } from "../../../core/receivables/domain/PairSync.ts"
import type { Changes } from "../../../core/receivables/domain/Resources.ts"
import { type Pair, PairStore } from "../../../core/receivables/ports/PairStore.ts"
import { SyncEngine } from "../../../core/receivables/services/SyncEngine.ts"
import type { ReceivableId } from "../../../core/shared/domain/Ids.ts"
import { noCounts } from "../../contracts/PairStore.harness.ts"
import { idleInTransaction, waitingForLock } from "../../support/LockWaits.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const start = Date.UTC(2026, 0, 1)
const simulatorConfig = { seed: 7, receivables: 60, startedAt: "2026-01-01T00:00:00Z", perDay: 2 }

const TestLayer = SyncEngine.layer.pipe(
  Layer.provideMerge(PgPairStore.layer),
  Layer.provide([Connectors.layerOf([Simulator.connector]), RandomIds.layer, EnvironmentSecrets.layer]),
  Layer.provideMerge(TestDatabase.layer)
)

const newPair = (connector = "simulator", config: unknown = simulatorConfig) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Sync Org') RETURNING id`
    const [vendor] = yield* sql<{
      id: string
    }>`INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'Acme') RETURNING id`
    const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('Globex') RETURNING id`
    const [integration] = yield* sql<{ id: string }>`
      INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, sync_interval, next_sync_at)
      VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, ${connector}, ${JSON.stringify(config)}::jsonb, '1 hour', now())
      RETURNING id`
    return yield* (yield* PairStore).get(integration!.id)
  }).pipe(Effect.orDie)

/** Everything a sync may change, for before/after comparisons. */
const snapshotOf = (integrationId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const receivables = yield* sql`
      SELECT id, document_key, amount_cents::text, currency, receivable_date::text, due_date::text, status,
        portal_status, po_number, metadata, updated_at
      FROM receivables WHERE integration_id = ${integrationId} ORDER BY document_key`
    const history = yield* sql`
      SELECT h.receivable_id, h.changes FROM receivable_history h JOIN receivables r ON r.id = h.receivable_id
      WHERE r.integration_id = ${integrationId} ORDER BY h.id`
    const events = yield* sql`
      SELECT e.batch, e.ordinal FROM events e JOIN receivables r ON r.id = e.receivable_id
      WHERE r.integration_id = ${integrationId}`
    return { receivables, history, events }
  }).pipe(Effect.orDie)

// The engine reads the time through Effect's Clock; a sync "on day n" runs under a clock fixed there.
let today = start
const at = (days: number) =>
  Effect.sync(() => {
    today = start + days * 86_400_000
  })
const fixedClock: Clock.Clock = {
  currentTimeMillisUnsafe: () => today,
  currentTimeMillis: Effect.sync(() => today),
  currentTimeNanosUnsafe: () => BigInt(today) * 1_000_000n,
  currentTimeNanos: Effect.sync(() => BigInt(today) * 1_000_000n),
  monotonicTimeNanosUnsafe: () => process.hrtime.bigint(),
  monotonicTimeNanos: Effect.sync(() => process.hrtime.bigint()),
  sleep: (duration) =>
    Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, Duration.toMillis(duration))))
}

// Plans written straight through a session, with ids of their own.
let ids = 0
const nextHex = () => (++ids).toString(16).padStart(32, "0")
const planning = (pair: Pair) => ({
  refs: pair.refs,
  now: DateTime.makeUnsafe(today),
  newReceivableId: () => `rcv_${nextHex()}` as ReceivableId,
  newEventId: () => `evt_${nextHex()}`
})

/** A sync of the pair at the fixed "today". */
const syncAt = (pair: Pair, worker = "test") =>
  Effect.gen(function* () {
    const engine = yield* SyncEngine
    return yield* engine.runPair(pair, worker)
  }).pipe(Effect.provideService(Clock.Clock, fixedClock))

layer(TestLayer, {
  timeout: 120_000,
  excludeTestServices: true
})("pair sync", (it) => {
  it.effect("follows the portal over time: inserts, then changes with history and events", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const pair = yield* newPair()

      yield* at(10)
      const first = yield* syncAt(pair, "test")
      assert.strictEqual(first._tag, "Succeeded")
      const issuedByDay10 = 21
      assert.deepStrictEqual(first._tag === "Succeeded" && first.counts, {
        fetched: issuedByDay10,
        created: issuedByDay10,
        updated: 0,
        unchanged: 0,
        quarantined: 0
      })
      const firstStates = yield* snapshotOf(pair.id)

      yield* at(40)
      const second = yield* syncAt(pair, "test")
      assert.strictEqual(second._tag, "Succeeded")
      const counts = second._tag === "Succeeded" ? second.counts : undefined
      assert.isAbove(counts!.updated, 0)
      assert.strictEqual(counts!.created, 60 - issuedByDay10)

      // The stored pair equals the simulator's snapshot at day 40.
      const expected = [...Array(60).keys()]
        .map((i) => Simulator.documentAt(simulatorConfig, i, start + 40 * 86_400_000)!)
        .sort((a, b) => a.documentKey.localeCompare(b.documentKey))
      const stored = yield* sql<{ document_key: string; portal_status: string; amount_cents: string }>`
        SELECT document_key, portal_status, amount_cents::text FROM receivables
        WHERE integration_id = ${pair.id} ORDER BY document_key`
      assert.deepStrictEqual(
        stored.map((r) => [r.document_key, r.portal_status, Number(r.amount_cents)]),
        expected.map((d) => [d.documentKey, d.portalStatus, d.amountCents])
      )

      // Every receivable's history reverts it to its state after the first sync.
      const rows = yield* sql<{
        id: string
        status: string
        portal_status: string
        amount_cents: string
        metadata: Record<string, string>
      }>`
        SELECT id, status, portal_status, amount_cents::text, metadata FROM receivables WHERE integration_id = ${pair.id}`
      for (const before of firstStates.receivables as ReadonlyArray<{
        id: string
        status: string
        portal_status: string
        amount_cents: string
        metadata: Record<string, string>
      }>) {
        const now = rows.find((r) => r.id === before.id)!
        const entries = yield* sql<{ changes: Changes }>`
          SELECT changes FROM receivable_history WHERE receivable_id = ${before.id} ORDER BY changed_at DESC, id DESC`
        let state = {
          status: now.status,
          portalStatus: now.portal_status,
          amountCents: Number(now.amount_cents),
          metadata: now.metadata
        } as never
        for (const entry of entries) state = revertChanges(state, entry.changes) as never
        const reverted = state as { status: string; portalStatus: string; amountCents: number; metadata: unknown }
        assert.deepStrictEqual(
          [reverted.status, reverted.portalStatus, reverted.amountCents, reverted.metadata],
          [before.status, before.portal_status, Number(before.amount_cents), before.metadata]
        )
      }

      const events = yield* sql<{ type: string; n: bigint }>`
        SELECT e.type, count(*) AS n FROM events e JOIN receivables r ON r.id = e.receivable_id
        WHERE r.integration_id = ${pair.id} GROUP BY e.type ORDER BY e.type`
      const byType = Object.fromEntries(events.map((e) => [e.type, Number(e.n)]))
      assert.strictEqual(byType["receivable.created"], 60)
      assert.strictEqual(byType["receivable.updated"], counts!.updated)
      assert.isAbove(byType["receivable.status_changed"] ?? 0, 0)
      // The feed serves events in sequence: each receivable's creation comes before its changes,
      // and a status change right after the update that carries it.
      const sequence = yield* sql<{ receivable_id: string; types: Array<string> }>`
        SELECT e.receivable_id, array_agg(e.type ORDER BY b.first_sequence + e.ordinal) AS types
        FROM events e JOIN event_batches b ON b.id = e.batch JOIN receivables r ON r.id = e.receivable_id
        WHERE r.integration_id = ${pair.id} GROUP BY e.receivable_id`
      for (const { types } of sequence) {
        assert.strictEqual(types[0], "receivable.created")
        types.forEach((type, i) => {
          if (type === "receivable.status_changed") assert.strictEqual(types[i - 1], "receivable.updated")
        })
      }
      // The outbox keeps each event's payload as planned, in the shape of spec section 6.
      const [changed] = yield* sql<{ receivable_id: string; data: Record<string, unknown> }>`
        SELECT e.receivable_id, e.data FROM events e JOIN receivables r ON r.id = e.receivable_id
        WHERE r.integration_id = ${pair.id} AND e.type = 'receivable.status_changed' ORDER BY e.batch, e.ordinal LIMIT 1`
      assert.deepStrictEqual(Object.keys(changed!.data).sort(), [
        "changed_at",
        "debtor",
        "new_portal_status",
        "new_status",
        "previous_portal_status",
        "previous_status",
        "receivable_id",
        "vendor"
      ])
      assert.deepStrictEqual(
        [changed!.data.receivable_id, changed!.data.vendor, changed!.data.debtor],
        [changed!.receivable_id, { id: pair.refs.vendor.id, name: "Acme" }, { id: pair.refs.debtor.id, name: "Globex" }]
      )
      assert.notStrictEqual(changed!.data.new_status, changed!.data.previous_status)

      const [run] = yield* sql<{ outcome: string; created: number; updated: number }>`
        SELECT outcome, created, updated FROM sync_runs WHERE integration_id = ${pair.id} ORDER BY id DESC LIMIT 1`
      assert.deepStrictEqual(
        [run!.outcome, run!.created, run!.updated],
        ["succeeded", counts!.created, counts!.updated]
      )

      // Nothing changed: nothing written, updated_at does not move.
      const third = yield* syncAt(pair, "test")
      assert.deepStrictEqual(third._tag === "Succeeded" && third.counts.unchanged, 60)
      const after = yield* snapshotOf(pair.id)
      assert.deepStrictEqual(after.receivables, (yield* snapshotOf(pair.id)).receivables)
    })
  )

  it.effect("a statement failing inside the transaction, or the connection killed, leaves the pair as it was", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const store = yield* PairStore
      const pair = yield* newPair()
      yield* at(5)
      yield* syncAt(pair, "test")
      const before = yield* snapshotOf(pair.id)
      yield* at(60)

      // The events insert, the last write of the plan, is refused.
      yield* sql`ALTER TABLE events ADD CONSTRAINT no_events CHECK (false) NOT VALID`
      const refused = yield* syncAt(pair, "test")
      yield* sql`ALTER TABLE events DROP CONSTRAINT no_events`
      assert.strictEqual(refused._tag, "Failed")
      assert.deepStrictEqual(yield* snapshotOf(pair.id), before)

      // The session's connection is terminated from outside after a chunk is written, before the
      // run's end.
      const documents = [...Array(60).keys()].map((i) => Simulator.documentAt(simulatorConfig, i, today)!)
      const killed = yield* Effect.exit(
        Effect.scoped(
          Effect.gen(function* () {
            const session = yield* store.session(pair, "test", DateTime.makeUnsafe(today))
            const current = yield* session.receivablesByKeys(documents.map((d) => d.documentKey))
            const plan = planPairSync(current, documents, planning(pair))
            assert.isAbove(plan.updates.length + plan.inserts.length, 0)
            yield* session.writeChunk(plan)
            // A read after the write sends it, so the kill falls between two statements.
            assert.strictEqual((yield* session.receivablesByKeys(documents.map((d) => d.documentKey))).length, 60)
            const terminated = yield* idleInTransaction
            assert.strictEqual(terminated.length, 1)
            yield* sql`SELECT pg_terminate_backend(${terminated[0]!})`
            yield* session.finish({
              counts: { fetched: 60, created: 0, updated: 0, unchanged: 0, quarantined: 0 },
              quarantine: [],
              nextSyncAt: DateTime.makeUnsafe(today)
            })
          })
        )
      )
      assert.strictEqual(killed._tag, "Failure")
      assert.deepStrictEqual(yield* snapshotOf(pair.id), before)

      // The next run completes it.
      const next = yield* syncAt(yield* store.get(pair.id), "test")
      assert.strictEqual(next._tag, "Succeeded")
      assert.notDeepEqual(yield* snapshotOf(pair.id), before)
    })
  )

  it.effect("two syncs of one pair at once: no duplicates, each change recorded once", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const pair = yield* newPair()
      yield* at(45)
      const outcomes = yield* Effect.all([syncAt(pair, "a"), syncAt(pair, "b")], { concurrency: 2 })
      assert.deepStrictEqual(
        outcomes.map((o) => o._tag),
        ["Succeeded", "Succeeded"]
      )
      const created = outcomes.map((o) => (o._tag === "Succeeded" ? o.counts.created : -1)).sort()
      assert.deepStrictEqual(created, [0, 60])
      const [counts] = yield* sql<{ receivables: bigint; events: bigint; history: bigint }>`
        SELECT (SELECT count(*) FROM receivables WHERE integration_id = ${pair.id}) AS receivables,
          (SELECT count(*) FROM events e JOIN receivables r ON r.id = e.receivable_id WHERE r.integration_id = ${pair.id}) AS events,
          (SELECT count(*) FROM receivable_history h JOIN receivables r ON r.id = h.receivable_id WHERE r.integration_id = ${pair.id}) AS history`
      assert.deepStrictEqual(
        [Number(counts!.receivables), Number(counts!.events), Number(counts!.history)],
        [60, 60, 0]
      )
    })
  )

  it.effect(
    "a sync waiting for another of its pair keeps its in-flight mark once the other ends, finished or failed",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const store = yield* PairStore
        const markOf = (id: string) =>
          sql<{ mark: string | null }>`SELECT sync_started_at::text AS mark FROM integrations WHERE id = ${id}`.pipe(
            Effect.map(([row]) => row?.mark ?? null),
            Effect.orDie
          )
        for (const firstFails of [false, true]) {
          const pair = yield* newPair()
          // A session that reports its pair's mark once open, then ends (or fails) when released.
          const openSession = (worker: string, fails: boolean) =>
            Effect.gen(function* () {
              const opened = yield* Deferred.make<string | null>()
              const release = yield* Deferred.make<void>()
              const fiber = yield* Effect.forkChild(
                Effect.scoped(
                  Effect.gen(function* () {
                    const session = yield* store.session(pair, worker, yield* DateTime.now)
                    yield* Deferred.succeed(opened, yield* markOf(pair.id))
                    yield* Deferred.await(release)
                    if (fails) return yield* Effect.fail("the portal failed part-way")
                    yield* session.finish({
                      counts: noCounts,
                      quarantine: [],
                      nextSyncAt: DateTime.add(session.at, { hours: 1 })
                    })
                  })
                ).pipe(Effect.ignore)
              )
              return { opened, release, fiber }
            })
          const first = yield* openSession("first", firstFails)
          const firstMark = yield* Deferred.await(first.opened)
          assert.isNotNull(firstMark)
          // The first holds the pair's row in its open transaction: the one backend idle in one.
          const holders = yield* idleInTransaction
          assert.lengthOf(holders, 1)
          const second = yield* openSession("second", false)
          yield* waitingForLock("the second sync waiting for the first's lock", { blockedBy: holders[0]! })
          assert.isFalse(yield* Deferred.isDone(second.opened), "the second sync waits for the first")
          assert.strictEqual(yield* markOf(pair.id), firstMark)

          yield* Deferred.succeed(first.release, undefined)
          // A finished first counts itself out in its commit, before the second counts itself in
          // with a mark of its own. A failed first counts itself out after its rollback, on the
          // pair's row, which the second may lock first (then the second keeps the first's mark,
          // earlier than anything it writes, and the first's count-out waits for its end).
          if (!firstFails) yield* Fiber.join(first.fiber)
          const secondMark = yield* Deferred.await(second.opened)
          assert.isNotNull(secondMark)
          if (!firstFails) assert.notStrictEqual(secondMark, firstMark)
          assert.strictEqual(yield* markOf(pair.id), secondMark)

          yield* Deferred.succeed(second.release, undefined)
          yield* Fiber.join(second.fiber)
          yield* Fiber.join(first.fiber)
          assert.isNull(yield* markOf(pair.id))
        }
      })
  )

  it.effect("receivables written before the pair's first run (an import) are matched, not duplicated", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const pair = yield* newPair()
      yield* at(45)
      const document = Simulator.documentAt(simulatorConfig, 0, today)!
      yield* sql`
        INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents, currency,
          receivable_date, status, portal_status, metadata, detected_at, updated_at)
        VALUES (${pair.orgId}, ${`rcv_${"0".repeat(32)}`}, ${pair.id}, ${pair.refs.vendor.id}, ${pair.refs.debtor.id},
          ${document.documentKey}, 1, 'EUR', '2026-01-01', 'PENDING', 'Imported', '{}'::jsonb, now(), now())`
      const outcome = yield* syncAt(pair)
      assert.strictEqual(outcome._tag, "Succeeded")
      assert.strictEqual(outcome._tag === "Succeeded" && outcome.counts.created, 59)
      const [imported] = yield* sql<{ portal_status: string; n: bigint }>`
        SELECT portal_status, (SELECT count(*) FROM receivables WHERE integration_id = ${pair.id}) AS n
        FROM receivables WHERE id = ${`rcv_${"0".repeat(32)}`}`
      assert.deepStrictEqual([imported!.portal_status, Number(imported!.n)], [document.portalStatus, 60])
    })
  )

  it.effect("a sync that grows the tables by a bulk load refreshes their planner statistics at once", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const pair = yield* newPair("simulator", { ...simulatorConfig, receivables: 1_200, perDay: 100_000 })
      // An onboarding: a thousand more pairs of the same organization, created in one go.
      yield* sql`
        WITH debtors AS (INSERT INTO debtors (name) SELECT 'Debtor ' || g FROM generate_series(1, 1000) g RETURNING id)
        INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config)
        SELECT ${pair.orgId}, ${pair.refs.vendor.id}, d.id, 'simulator', '{}'::jsonb FROM debtors d`
      const [before] = yield* sql<{ now: Date }>`SELECT clock_timestamp() AS now`
      yield* at(1)
      const outcome = yield* syncAt(pair)
      assert.strictEqual(outcome._tag === "Succeeded" && outcome.counts.created, 1_200)
      const analyzed = yield* sql<{ relname: string }>`
        SELECT relname FROM pg_stat_user_tables
        WHERE relname IN ('receivables', 'receivable_history', 'integrations') AND last_analyze >= ${before!.now}
        ORDER BY relname`
      assert.deepStrictEqual(
        analyzed.map((table) => table.relname),
        ["integrations", "receivable_history", "receivables"]
      )
    })
  )
})
