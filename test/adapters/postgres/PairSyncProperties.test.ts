/**
 * Properties of pair syncs against a real PostgreSQL: after any sequence of portal snapshots the
 * stored pair equals the last one (quarantined documents keep their previous state) and its
 * history replays back through every earlier state; a failure at any write of a sync leaves the
 * pair exactly as before; and readers running alongside syncs see a pair whole: one next-update
 * time, and all of a sync's changes or none.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import * as RandomIds from "../../../adapters/ids/RandomIds.ts"
import * as Connectors from "../../../adapters/portals/Connectors.ts"
import * as Simulator from "../../../adapters/portals/simulator/SimulatorConnector.ts"
import { type ReceivableRow, toPairReceivable } from "../../../adapters/postgres/PgPairRows.ts"
import * as PgPairStore from "../../../adapters/postgres/PgPairStore.ts"
import * as EnvironmentSecrets from "../../../adapters/secrets/EnvironmentSecrets.ts"
import { revertChanges } from "../../../core/receivables/domain/History.ts"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import type { Changes, ReceivableState } from "../../../core/receivables/domain/Resources.ts"
import { type Pair, PairStore } from "../../../core/receivables/ports/PairStore.ts"
import type { PortalConnector } from "../../../core/receivables/ports/PortalConnector.ts"
import { defaultDeadline, SyncEngine } from "../../../core/receivables/services/SyncEngine.ts"
import { arbitraryCurrency, arbitraryIsoDate, arbitraryMetadata } from "../../support/arbitraries.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

// A portal that answers whatever the test scripts for it.
let script: ReadonlyArray<FetchedDocument> = []
const scripted: PortalConnector = { ...Simulator.connector, kind: "scripted", fetch: () => Stream.fromIterable(script) }

// Two documents a chunk: every sync of more than two documents is planned and written in chunks.
const TestLayer = SyncEngine.layerWith({ deadline: defaultDeadline, chunkSize: 2 }).pipe(
  Layer.provideMerge(PgPairStore.layer),
  Layer.provide([Connectors.layerOf([scripted, Simulator.connector]), RandomIds.layer, EnvironmentSecrets.layer]),
  Layer.provideMerge(TestDatabase.layer)
)

const newPair = (connector: string, config: unknown = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('P') RETURNING id`
    const [vendor] = yield* sql<{
      id: string
    }>`INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'V') RETURNING id`
    const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('D') RETURNING id`
    const [row] = yield* sql<{ id: string }>`
      INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
      VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, ${connector}, ${JSON.stringify(config)}::jsonb, now() + interval '1 day')
      RETURNING id`
    return yield* (yield* PairStore).get(row!.id)
  }).pipe(Effect.orDie)

const documentFor = (key: string): fc.Arbitrary<FetchedDocument> =>
  fc.record({
    documentKey: fc.constant(key),
    vendorReceivableId: fc.option(fc.constantFrom("INV-1", "INV-2"), { nil: null }),
    amountCents: fc.integer({ min: 0, max: 1_000_000 }),
    currency: arbitraryCurrency,
    receivableDate: arbitraryIsoDate,
    dueDate: fc.option(arbitraryIsoDate, { nil: null }),
    portalStatus: fc.constantFrom("Submitted", "Approved", "Paid", "On hold", "Factored", "Parked"),
    poNumber: fc.option(fc.constantFrom("PO-1", "PO-2"), { nil: null }),
    metadata: arbitraryMetadata
  })

// One document in eight has a date that does not exist: it is quarantined.
const invalidDate = "2026-02-30"
const sometimesInvalid = (key: string) =>
  fc
    .tuple(documentFor(key), fc.integer({ min: 0, max: 7 }))
    .map(([doc, roll]) => (roll === 0 ? { ...doc, receivableDate: invalidDate } : doc))

const keys = ["a", "b", "c", "d", "e"]
const snapshot = fc.subarray(keys).chain((subset) => fc.tuple(...subset.map(sometimesInvalid)))

const stateOf = (row: ReceivableRow): ReceivableState => toPairReceivable(row).state

// A state as comparable text: key order is no part of a JSON object's meaning.
const stateText = (state: ReceivableState) =>
  JSON.stringify({
    ...state,
    metadata: Object.fromEntries(Object.entries(state.metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  })

const pairRows = (pair: Pair) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<ReceivableRow>`
      SELECT id, document_key, vendor_receivable_id, amount_cents::text, currency, receivable_date::text,
        due_date::text, status, portal_status, po_number, metadata, detected_at
      FROM receivables WHERE integration_id = ${pair.id} ORDER BY document_key`
  ).pipe(Effect.orDie)

layer(TestLayer, { timeout: 300_000, excludeTestServices: true })("pair sync properties", (it) => {
  it.effect(
    "after any snapshots the pair equals the last valid state of each document; history replays every earlier state",
    () =>
      Effect.gen(function* () {
        const engine = yield* SyncEngine
        const samples = fc.sample(fc.array(snapshot, { minLength: 1, maxLength: 5 }), { numRuns: 40, seed: 20261121 })
        for (const snapshots of samples) {
          const pair = yield* newPair("scripted")
          const last = new Map<string, FetchedDocument>()
          const seen = new Map<string, Array<string>>()
          for (const docs of snapshots) {
            script = docs
            const outcome = yield* engine.runPair(pair, "property")
            assert.strictEqual(outcome._tag, "Succeeded")
            for (const doc of docs) if (doc.receivableDate !== invalidDate) last.set(doc.documentKey, doc)
            for (const row of yield* pairRows(pair)) {
              const states = seen.get(row.id) ?? []
              const state = stateText(stateOf(row))
              if (states.at(-1) !== state) states.push(state)
              seen.set(row.id, states)
            }
          }
          const rows = yield* pairRows(pair)
          assert.deepStrictEqual(
            rows.map((r) => r.document_key),
            [...last.keys()].sort()
          )
          for (const row of rows) {
            const doc = last.get(row.document_key)!
            assert.deepStrictEqual(
              [row.portal_status, Number(row.amount_cents), row.currency, row.receivable_date, row.metadata],
              [doc.portalStatus, doc.amountCents, doc.currency, doc.receivableDate, doc.metadata]
            )
            const sql = yield* SqlClient.SqlClient
            const entries = yield* sql<{ changes: Changes }>`
            SELECT changes FROM receivable_history WHERE receivable_id = ${row.id} ORDER BY changed_at DESC, id DESC`
            const walked = [stateOf(row)]
            for (const entry of entries) walked.unshift(revertChanges(walked[0]!, entry.changes))
            assert.deepStrictEqual(walked.map(stateText), seen.get(row.id))
          }
        }
      })
  )

  it.effect("a key the portal repeats counts once, in whichever chunk it comes back: its first occurrence stands", () =>
    Effect.gen(function* () {
      const engine = yield* SyncEngine
      const answer = fc.array(fc.constantFrom(...keys).chain(sometimesInvalid), { maxLength: 9 })
      const samples = fc.sample(fc.array(answer, { minLength: 1, maxLength: 3 }), { numRuns: 30, seed: 20261122 })
      for (const answers of samples) {
        const pair = yield* newPair("scripted")
        const expected = new Map<string, FetchedDocument>()
        for (const docs of answers) {
          script = docs
          const outcome = yield* engine.runPair(pair, "property")
          assert.strictEqual(outcome._tag, "Succeeded")
          const firsts = new Map<string, FetchedDocument>()
          for (const doc of docs) if (!firsts.has(doc.documentKey)) firsts.set(doc.documentKey, doc)
          const valid = [...firsts.values()].filter((doc) => doc.receivableDate !== invalidDate)
          for (const doc of valid) expected.set(doc.documentKey, doc)
          if (outcome._tag === "Succeeded") {
            assert.strictEqual(outcome.counts.fetched, docs.length)
            assert.strictEqual(outcome.counts.quarantined, docs.length - valid.length)
          }
          const rows = yield* pairRows(pair)
          assert.deepStrictEqual(
            rows.map((row) => [row.document_key, Number(row.amount_cents), row.portal_status, row.metadata]),
            [...expected.values()]
              .sort((a, b) => a.documentKey.localeCompare(b.documentKey))
              .map((doc) => [doc.documentKey, doc.amountCents, doc.portalStatus, doc.metadata])
          )
        }
      }
    })
  )

  it.effect("a document whose text cannot be stored is quarantined; the rest of its pair syncs, now and later", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const engine = yield* SyncEngine
      const docs = fc.sample(fc.tuple(...["a", "b", "c", "d", "e", "f", "g"].map(documentFor)), {
        numRuns: 1,
        seed: 7
      })[0]!
      const [a, b, c, d, e, f, g] = docs
      // Emoji are whole surrogate pairs: kept as they are.
      const good = [{ ...a!, poNumber: "PO-😀" }, { ...c!, metadata: { note: "🧾 paid" } }, g!]
      const bad = [
        { ...b!, poNumber: "PO\u0000-1" },
        { ...d!, metadata: { note: "x\udc00" } },
        { ...e!, documentKey: "e\u0000" },
        { ...f!, metadata: { ["k\ud800"]: "x" } }
      ]
      const pair = yield* newPair("scripted")
      // Two documents a chunk: the unstorable ones fall in every chunk, first and later ones.
      script = [good[0]!, bad[0]!, bad[1]!, good[1]!, bad[2]!, bad[3]!, good[2]!]
      for (const run of ["first", "again"]) {
        const outcome = yield* engine.runPair(pair, run)
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        if (outcome._tag === "Succeeded") assert.strictEqual(outcome.counts.quarantined, 4)
        const rows = yield* pairRows(pair)
        assert.deepStrictEqual(
          rows.map((row) => [row.document_key, row.po_number, row.metadata]),
          good.map((doc) => [doc.documentKey, doc.poNumber, doc.metadata])
        )
        const [record] = yield* sql<{ quarantine: Array<{ documentKey: string; reasons: Array<string> }> }>`
          SELECT quarantine FROM sync_runs WHERE integration_id = ${pair.id} AND worker = ${run}`
        assert.deepStrictEqual(
          record!.quarantine.map((entry) => [entry.documentKey, entry.reasons.map((reason) => reason.split(":")[0])]),
          [
            ["b", ["poNumber"]],
            ["d", ["metadata.note"]],
            ["e\ufffd", ["documentKey"]],
            ["f", ["metadata"]]
          ]
        )
      }
    })
  )

  it.effect(
    "a document over a text limit, or one its connector could not read, is quarantined naming the field; the rest of its pair syncs",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const engine = yield* SyncEngine
        const docs = fc.sample(fc.tuple(...["a", "b", "c", "d", "e", "f"].map(documentFor)), {
          numRuns: 1,
          seed: 11
        })[0]!
        const [a, b, c, d, e, f] = docs
        const good = [a!, f!]
        const longKey = "k".repeat(3_000)
        const bad = [
          // PostgreSQL cannot index a key this long: once it failed the pair's every sync.
          { ...b!, documentKey: longKey },
          { ...c!, poNumber: "P".repeat(10 * 1024 * 1024) },
          { ...d!, metadata: { note: "n".repeat(5_000) } },
          { ...e!, documentKey: "orders.csv row 4", unreadable: ["the row has no document key"] }
        ]
        const pair = yield* newPair("scripted")
        script = [good[0]!, ...bad, good[1]!]
        const outcome = yield* engine.runPair(pair, "limits")
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome).slice(0, 500))
        if (outcome._tag === "Succeeded") assert.strictEqual(outcome.counts.quarantined, 4)
        const rows = yield* pairRows(pair)
        assert.deepStrictEqual(
          rows.map((row) => row.document_key),
          good.map((doc) => doc.documentKey)
        )
        const [record] = yield* sql<{ quarantine: Array<{ documentKey: string; reasons: Array<string> }> }>`
        SELECT quarantine FROM sync_runs WHERE integration_id = ${pair.id} AND worker = 'limits'`
        assert.deepStrictEqual(record!.quarantine, [
          { documentKey: `${"k".repeat(256)}…`, reasons: ["documentKey: 3000 characters, over the limit of 256"] },
          { documentKey: "c", reasons: ["poNumber: 10485760 characters, over the limit of 256"] },
          { documentKey: "d", reasons: ["metadata.note: 5000 characters, over the limit of 4096"] },
          { documentKey: "orders.csv row 4", reasons: ["the row has no document key"] }
        ])
      })
  )

  it.effect("a failure at any write of a sync leaves the pair exactly as before; the next run completes it", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const engine = yield* SyncEngine
      const store = yield* PairStore
      const points = ["receivables", "receivable_history", "events", "sync_runs"] as const
      for (const table of points) {
        const pair = yield* newPair("scripted")
        script = fc.sample(fc.tuple(documentFor("a"), documentFor("b")), { numRuns: 1, seed: 1 })[0]!
        yield* engine.runPair(pair, "faults")
        const before = yield* pairRows(pair)
        const [history] = yield* sql<{ n: bigint }>`SELECT count(*) AS n FROM receivable_history`
        script = [
          ...fc.sample(fc.tuple(documentFor("a"), documentFor("b")), { numRuns: 1, seed: 2 })[0]!,
          ...fc.sample(documentFor("c"), { numRuns: 1, seed: 3 })
        ]
        // The run record's fault refuses a succeeded run only: the failed one must still be recorded,
        // or the engine would keep trying to record it for as long as the pair's lease lasts.
        const refused = table === "sync_runs" ? "outcome <> 'succeeded'" : "false"
        yield* sql.unsafe(`ALTER TABLE ${table} ADD CONSTRAINT injected_fault CHECK (${refused}) NOT VALID`)
        const outcome = yield* engine.runPair(yield* store.get(pair.id), "faults")
        yield* sql.unsafe(`ALTER TABLE ${table} DROP CONSTRAINT injected_fault`)
        assert.strictEqual(outcome._tag, "Failed", table)
        assert.deepStrictEqual(yield* pairRows(pair), before, table)
        const [historyAfter] = yield* sql<{ n: bigint }>`SELECT count(*) AS n FROM receivable_history`
        assert.strictEqual(historyAfter!.n, history!.n, table)
        const [failedRuns] = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM sync_runs WHERE integration_id = ${pair.id} AND outcome = 'failed'`
        assert.strictEqual(failedRuns!.n, 1, table)
        const completed = yield* engine.runPair(yield* store.get(pair.id), "faults")
        assert.strictEqual(completed._tag, "Succeeded", table)
        assert.strictEqual((yield* pairRows(pair)).length, 3, table)
      }
    })
  )

  it.effect("readers alongside syncs see one next-update time per pair and all of a sync or none of it", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const engine = yield* SyncEngine
      const store = yield* PairStore
      const pair = yield* newPair("scripted")
      const observations: Array<{ readonly at: string | null; readonly n: number; readonly nexts: number }> = []
      let syncing = true
      // One statement: what an API list query of the pair would see.
      const look = Effect.map(
        sql<{ at: string | null; n: bigint; nexts: bigint }>`
          WITH pair AS (
            SELECT r.updated_at, CASE WHEN i.paused_at IS NULL THEN i.next_sync_at END AS next
            FROM receivables r JOIN integrations i ON i.id = r.integration_id WHERE r.integration_id = ${pair.id}
          )
          SELECT max(updated_at)::text AS at,
            count(*) FILTER (WHERE updated_at = (SELECT max(updated_at) FROM pair)) AS n,
            count(DISTINCT next) AS nexts
          FROM pair`,
        ([seen]) => ({ at: seen!.at, n: Number(seen!.n), nexts: Number(seen!.nexts) })
      )
      const reader = Effect.gen(function* () {
        while (syncing) observations.push(yield* look)
      })
      // What each sync changed, seen once it has committed: the rows of its change time.
      const changedAt = new Map<string | null, number>()
      const writer = Effect.gen(function* () {
        for (let round = 0; round < 25; round++) {
          script = fc.sample(
            fc
              .array(
                documentFor("x").map((d) => d),
                { minLength: 0, maxLength: 0 }
              )
              .chain(() => fc.tuple(...Array.from({ length: 30 }, (_, i) => documentFor(`k${i}`)))),
            { numRuns: 1, seed: round }
          )[0]!
          yield* engine.runPair(yield* store.get(pair.id), "writer")
          const after = yield* look
          changedAt.set(after.at, after.n)
        }
        syncing = false
      })
      yield* Effect.all([reader, writer], { concurrency: 2 })
      assert.isAbove(observations.length, 10)
      for (const seen of observations) {
        if (seen.at === null) continue
        assert.isAtMost(seen.nexts, 1)
        // The newest change a reader sees belongs to a complete sync: all its rows, not some.
        assert.strictEqual(seen.n, changedAt.get(seen.at), `saw ${seen.n} rows changed at ${seen.at}`)
      }
    })
  )
})
