/**
 * The sync engine against a real PostgreSQL with the simulator: a pair follows its portal over
 * simulated time, history replays back to earlier states, failures anywhere (connector, a
 * statement inside the transaction, the connection killed) leave the pair exactly as it was, and
 * concurrent syncs of one pair serialize without duplicates.
 */
import { assert, layer } from "@effect/vitest"
import { Clock, DateTime, Duration, Effect, Fiber, Layer, Stream } from "effect"
import { SqlClient } from "effect/sql"
import * as RandomIds from "../../../adapters/keys/RandomIds.ts"
import * as Connectors from "../../../adapters/portals/Connectors.ts"
import * as Simulator from "../../../adapters/portals/simulator/SimulatorConnector.ts"
import * as PgPairStore from "../../../adapters/postgres/PgPairStore.ts"
import * as EnvironmentSecrets from "../../../adapters/secrets/EnvironmentSecrets.ts"
import { revertChanges } from "../../../core/domain/History.ts"
import type { Changes } from "../../../core/domain/Resources.ts"
import { type Integration, PairStore } from "../../../core/ports/PairStore.ts"
import { ConnectorFailed, type PortalConnector } from "../../../core/ports/PortalConnector.ts"
import * as Scheduler from "../../../core/services/Scheduler.ts"
import { SyncEngine } from "../../../core/services/SyncEngine.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const start = Date.UTC(2026, 0, 1)
const simulatorConfig = { seed: 7, receivables: 60, startedAt: "2026-01-01T00:00:00Z", perDay: 2 }

// A connector that fails on demand, and otherwise answers as the simulator.
let failNext: ConnectorFailed | undefined
const flaky: PortalConnector = {
  ...Simulator.connector,
  kind: "flaky",
  fetch: (pair) => (failNext === undefined ? Simulator.connector.fetch(pair) : Stream.fail(failNext))
}

// A portal that takes its time before answering as the simulator.
const slow: PortalConnector = {
  ...Simulator.connector,
  kind: "slow",
  fetch: (pair) => Stream.unwrap(Effect.as(Effect.sleep("3 seconds"), Simulator.connector.fetch(pair)))
}

// A portal that never answers, as a FIFO in a file inbox once did.
const hanging: PortalConnector = { ...Simulator.connector, kind: "hanging", fetch: () => Stream.never }

// The store as a database outage leaves it: the next `outage` attempts to record a failed run die
// as a lost connection would.
let outage = 0
const OutageStore = Layer.effect(
  PairStore,
  Effect.gen(function* () {
    const store = yield* PairStore
    return PairStore.of({
      ...store,
      recordFailure: (integration, run) =>
        Effect.suspend(() => {
          if (outage === 0) return store.recordFailure(integration, run)
          outage -= 1
          return Effect.die(new Error("connect ECONNREFUSED 127.0.0.1:5432"))
        })
    })
  })
).pipe(Layer.provide(PgPairStore.layer))

const TestLayer = SyncEngine.layer.pipe(
  Layer.provideMerge(OutageStore),
  Layer.provide([
    Connectors.layerOf([Simulator.connector, flaky, slow, hanging]),
    RandomIds.layer,
    EnvironmentSecrets.layer
  ]),
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
      SELECT e.id FROM events e JOIN receivables r ON r.id = e.receivable_id WHERE r.integration_id = ${integrationId}`
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

/** A sync of the pair at the fixed "today". */
const syncAt = (pair: Integration, worker = "test") =>
  Effect.gen(function* () {
    const engine = yield* SyncEngine
    return yield* engine.runPair(pair, worker)
  }).pipe(Effect.provideService(Clock.Clock, fixedClock))

/**
 * Only these pairs due: a slow one first, then `others` quick ones; the scheduler `worker` runs
 * them with `concurrency` slots, in a fiber the caller interrupts.
 */
const slowFirst = (others: number, worker: string, concurrency: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE integrations SET next_sync_at = now() + interval '1 day', lease_expires_at = NULL`
    const slowPair = yield* newPair("slow", { ...simulatorConfig, receivables: 5 })
    yield* sql`UPDATE integrations SET next_sync_at = now() - interval '1 hour' WHERE id = ${slowPair.id}`
    const quick = yield* Effect.forEach(Array.from({ length: others }), () =>
      newPair("simulator", { ...simulatorConfig, receivables: 5 })
    )
    const fiber = yield* Effect.forkChild(Scheduler.run({ worker, concurrency, pollInterval: Duration.millis(20) }))
    return { slowPair, quick, fiber }
  })

/** Polls `count` every 25 ms, up to two seconds, until it reaches `target`; returns the last count. */
const pollUntil = (count: Effect.Effect<number, unknown, SqlClient.SqlClient>, target: number) =>
  Effect.gen(function* () {
    let last = 0
    for (let i = 0; i < 80 && last < target; i++) {
      yield* Effect.sleep(Duration.millis(25))
      last = yield* count
    }
    return last
  })

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
      // Delivery reads the outbox in sequence: each receivable's creation comes before its changes,
      // and a status change right after the update that carries it.
      const sequence = yield* sql<{ receivable_id: string; types: Array<string> }>`
        SELECT e.receivable_id, array_agg(e.type ORDER BY e.seq) AS types
        FROM events e JOIN receivables r ON r.id = e.receivable_id
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
        WHERE r.integration_id = ${pair.id} AND e.type = 'receivable.status_changed' ORDER BY e.seq LIMIT 1`
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

  it.effect("a connector failure leaves the pair as it was and schedules a backed-off retry", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const pair = yield* newPair("flaky")
      yield* at(5)
      yield* syncAt(pair, "test")
      const before = yield* snapshotOf(pair.id)

      yield* at(30)
      failNext = new ConnectorFailed({ message: "portal timed out", retryable: true })
      const failed = yield* syncAt(pair, "test")
      failNext = undefined
      assert.strictEqual(failed._tag, "Failed")
      assert.deepStrictEqual(yield* snapshotOf(pair.id), before)
      const [state] = yield* sql<{ next_sync_at: Date; consecutive_failures: number; last_error: string }>`
        SELECT next_sync_at, consecutive_failures, last_error FROM integrations WHERE id = ${pair.id}`
      assert.strictEqual(state!.consecutive_failures, 1)
      assert.strictEqual(state!.last_error, "portal timed out")
      const delay = state!.next_sync_at.getTime() - (start + 30 * 86_400_000)
      assert.isTrue(delay >= 27_000 && delay <= 33_000, `retry after ${delay} ms`)

      const recovered = yield* syncAt(yield* (yield* PairStore).get(pair.id), "test")
      assert.strictEqual(recovered._tag, "Succeeded")
      const [reset] = yield* sql<{ consecutive_failures: number }>`
        SELECT consecutive_failures FROM integrations WHERE id = ${pair.id}`
      assert.strictEqual(reset!.consecutive_failures, 0)
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

      // The transaction's own connection is terminated after planning, before writing.
      const killed = yield* Effect.exit(
        store.syncPair(pair, {
          worker: "test",
          startedAt: DateTime.makeUnsafe(start),
          nextSyncAt: DateTime.makeUnsafe(start),
          documents: Stream.make(Simulator.documentAt(simulatorConfig, 0, start + 86_400_000)!),
          plan: (current) =>
            sql`SELECT pg_terminate_backend(pg_backend_pid())`.pipe(
              Effect.ignore,
              Effect.as({
                inserts: [],
                updates: [],
                unchanged: current.length,
                quarantined: [],
                events: [],
                fetched: 0
              })
            )
        })
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

  it.effect("a portal's Retry-After is honoured: the retry is never sooner than it asked", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const pair = yield* newPair("flaky")
      yield* at(2)
      failNext = new ConnectorFailed({ message: "rate limited (429)", retryable: true, retryAfterSeconds: 900 })
      const failed = yield* syncAt(pair, "test")
      failNext = undefined
      assert.strictEqual(failed._tag, "Failed")
      const [state] = yield* sql<{ next_sync_at: Date }>`SELECT next_sync_at FROM integrations WHERE id = ${pair.id}`
      // The first backoff would be about 30 s; the portal asked for 15 minutes.
      assert.strictEqual(state!.next_sync_at.getTime() - (start + 2 * 86_400_000), 900_000)
    })
  )

  it.effect("a portal's Retry-After is honoured up to 24 hours, and the run says it was capped", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const pair = yield* newPair("flaky")
      yield* at(2)
      failNext = new ConnectorFailed({ message: "rate limited (429)", retryable: true, retryAfterSeconds: 999_999_999 })
      const failed = yield* syncAt(pair, "test")
      failNext = undefined
      assert.strictEqual(failed._tag, "Failed")
      const [state] = yield* sql<{ next_sync_at: Date; last_error: string }>`
        SELECT next_sync_at, last_error FROM integrations WHERE id = ${pair.id}`
      assert.strictEqual(state!.next_sync_at.getTime() - (start + 2 * 86_400_000), 86_400_000)
      assert.match(state!.last_error, /asked to wait 999999999 s; waiting 1d/)
    })
  )

  it.effect("a sync past its pair's deadline fails and hands back its lease; the pair is as it was", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const engine = yield* SyncEngine
      const pair = yield* newPair("hanging")
      yield* sql`UPDATE integrations SET sync_deadline = interval '300 milliseconds' WHERE id = ${pair.id}`
      yield* sql`UPDATE integrations SET next_sync_at = now() + interval '1 day', lease_expires_at = NULL`
      yield* sql`UPDATE integrations SET next_sync_at = now() - interval '1 minute' WHERE id = ${pair.id}`
      const [claimed] = yield* engine.claimDue("deadline-worker", 1)
      assert.strictEqual(claimed?.id, pair.id)
      const outcome = yield* engine.runPair(claimed!, "deadline-worker")
      assert.strictEqual(outcome._tag, "Failed")
      assert.match(outcome._tag === "Failed" ? outcome.error : "", /did not finish within its deadline of 300ms/)
      const [state] = yield* sql<{ lease_owner: string | null; last_outcome: string; receivables: number }>`
        SELECT lease_owner, last_outcome,
          (SELECT count(*)::int FROM receivables WHERE integration_id = ${pair.id}) AS receivables
        FROM integrations WHERE id = ${pair.id}`
      assert.deepStrictEqual(state, { lease_owner: null, last_outcome: "failed", receivables: 0 })
    })
  )

  it.effect(
    "a run cut off by a database outage is recorded once the database answers again, and its lease handed back",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const engine = yield* SyncEngine
        const pair = yield* newPair("flaky")
        yield* sql`UPDATE integrations SET next_sync_at = now() + interval '1 day', lease_expires_at = NULL`
        yield* sql`UPDATE integrations SET next_sync_at = now() - interval '1 minute' WHERE id = ${pair.id}`
        const [claimed] = yield* engine.claimDue("outage-worker", 1)
        failNext = new ConnectorFailed({ message: "portal timed out", retryable: true })
        outage = 2
        const outcome = yield* engine.runPair(claimed!, "outage-worker")
        failNext = undefined
        assert.strictEqual(outage, 0)
        assert.strictEqual(outcome._tag, "Failed")
        const [state] = yield* sql<{
          lease_owner: string | null
          last_outcome: string
          runs: number
          retry_in: number
        }>`
        SELECT lease_owner, last_outcome, extract(epoch FROM next_sync_at - now())::int AS retry_in,
          (SELECT count(*)::int FROM sync_runs WHERE integration_id = ${pair.id} AND outcome = 'failed') AS runs
        FROM integrations WHERE id = ${pair.id}`
        assert.strictEqual(state!.lease_owner, null)
        assert.strictEqual(state!.last_outcome, "failed")
        assert.strictEqual(state!.runs, 1)
        // The first retry's backoff (30 s with jitter), not the ten minutes of an expiring lease.
        assert.isBelow(state!.retry_in, 40)
      })
  )

  it.effect("a misconfigured pair fails without retry storms: it waits for its interval", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const pair = yield* newPair("simulator", { seed: "x" })
      yield* at(1)
      const outcome = yield* syncAt(pair, "test")
      assert.strictEqual(outcome._tag, "Failed")
      assert.match(outcome._tag === "Failed" ? outcome.error : "", /simulator configuration/)
      const [state] = yield* sql<{ next_sync_at: Date }>`SELECT next_sync_at FROM integrations WHERE id = ${pair.id}`
      const delay = state!.next_sync_at.getTime() - (start + 86_400_000)
      assert.isAbove(delay, Duration.toMillis(Duration.minutes(50)))
    })
  )

  it.effect("claims are leased: two workers never hold the same pair, and an expired lease is taken over", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const store = yield* PairStore
      // Only pairs of this test are due.
      yield* sql`UPDATE integrations SET next_sync_at = now() + interval '1 day'`
      const pairs = yield* Effect.forEach([1, 2, 3], () => newPair())
      yield* sql`UPDATE integrations SET next_sync_at = now() - interval '1 minute'
        WHERE id IN ${sql.in(pairs.map((p) => p.id))}`
      const [a, b] = yield* Effect.all(
        [store.claimDue("a", 2, Duration.minutes(10)), store.claimDue("b", 2, Duration.minutes(10))],
        { concurrency: 2 }
      )
      const claimed = [...a, ...b].map((p) => p.id)
      assert.strictEqual(claimed.length, 3)
      assert.strictEqual(new Set(claimed).size, 3)
      assert.deepStrictEqual(yield* store.claimDue("c", 10, Duration.minutes(10)), [])
      // Worker "a" dies; once its lease expires, its pairs go to another worker.
      yield* sql`UPDATE integrations SET lease_expires_at = now() - interval '1 second' WHERE lease_owner = 'a'`
      const takenOver = yield* store.claimDue("c", 10, Duration.minutes(10))
      assert.deepStrictEqual(takenOver.map((p) => p.id).sort(), a.map((p) => p.id).sort())
    })
  )

  it.effect("the scheduler syncs due pairs and records every run", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE integrations SET next_sync_at = now() + interval '1 day', lease_expires_at = NULL`
      const pair = yield* newPair("simulator", { ...simulatorConfig, receivables: 5 })
      const fiber = yield* Effect.forkChild(
        Scheduler.run({ worker: "scheduler-test", concurrency: 2, pollInterval: Duration.millis(20) })
      )
      let runs = 0
      for (let i = 0; i < 100 && runs === 0; i++) {
        yield* Effect.sleep(Duration.millis(50))
        const [row] = yield* sql<{ n: bigint }>`SELECT count(*) AS n FROM sync_runs WHERE integration_id = ${pair.id}`
        runs = Number(row!.n)
      }
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(runs, 1)
      const [state] = yield* sql<{ next_sync_at: Date; lease_owner: string | null; n: bigint }>`
        SELECT next_sync_at, lease_owner, (SELECT count(*) FROM receivables WHERE integration_id = ${pair.id}) AS n
        FROM integrations WHERE id = ${pair.id}`
      assert.isNull(state!.lease_owner)
      assert.strictEqual(Number(state!.n), 5)
      // Next sync an hour later, give or take the 10% jitter.
      const ahead = state!.next_sync_at.getTime() - Date.now()
      assert.isTrue(ahead > 50 * 60_000 && ahead < 67 * 60_000, `next sync in ${ahead} ms`)
    })
  )

  it.effect("a slow portal holds up its own slot only: the other pairs sync meanwhile", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { slowPair, quick, fiber } = yield* slowFirst(4, "slots-test", 2)
      const ids = quick.map((pair) => pair.id)
      const synced = yield* pollUntil(
        sql<{ n: bigint }>`
          SELECT count(DISTINCT integration_id) AS n FROM sync_runs
          WHERE integration_id IN ${sql.in(ids)} AND outcome = 'succeeded'`.pipe(Effect.map(([row]) => Number(row!.n))),
        ids.length
      )
      const [slowRuns] = yield* sql<{
        n: bigint
      }>`SELECT count(*) AS n FROM sync_runs WHERE integration_id = ${slowPair.id}`
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(synced, ids.length)
      assert.strictEqual(Number(slowRuns!.n), 0)
    })
  )

  it.effect("a scheduler that stops hands back the leases of the pairs it has not finished", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // One slot: the slow pair runs, the others wait in the scheduler's claimed batch.
      const { slowPair, quick, fiber } = yield* slowFirst(2, "stopping", 1)
      const ids = [slowPair, ...quick].map((pair) => pair.id)
      const leased = yield* pollUntil(
        sql<{ n: bigint }>`
          SELECT count(*) AS n FROM integrations WHERE id IN ${sql.in(ids)} AND lease_owner = 'stopping'`.pipe(
          Effect.map(([row]) => Number(row!.n))
        ),
        ids.length
      )
      assert.strictEqual(leased, ids.length)
      yield* Fiber.interrupt(fiber)
      const still = yield* sql`SELECT id FROM integrations WHERE id IN ${sql.in(ids)} AND lease_owner IS NOT NULL`
      assert.deepStrictEqual(still, [])
      const due = yield* (yield* SyncEngine).claimDue("next-worker", 10)
      assert.deepStrictEqual(due.map((pair) => pair.id).sort(), [...ids].sort())
    })
  )
})
