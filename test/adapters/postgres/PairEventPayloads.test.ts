/**
 * The payloads PostgreSQL builds for a sync's events: a created or updated event's payload is
 * written by the statement from the row it writes (`PgPairRows`), and must be, byte for byte, the
 * text `JSON.stringify` gives the payload core plans (`receivableSnapshot`), for any text a
 * receivable, its pair's vendor and debtor, or its metadata may hold: quotes, backslashes,
 * control characters, any other character of Unicode.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import * as RandomIds from "../../../adapters/ids/RandomIds.ts"
import * as PgPairStore from "../../../adapters/postgres/PgPairStore.ts"
import { type FetchedDocument, isStorableText, type PlannedEvent, planPairSync } from "../../../core/domain/PairSync.ts"
import { IdSource } from "../../../core/ports/IdSource.ts"
import { PairStore } from "../../../core/ports/PairStore.ts"
import { noCounts } from "../../contracts/PairStore.harness.ts"
import { arbitraryCurrency, arbitraryIsoDate } from "../../support/arbitraries.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const TestLayer = PgPairStore.layer.pipe(Layer.provideMerge(RandomIds.layer), Layer.provideMerge(TestDatabase.layer))

// Any storable text: the characters JSON must escape come often, the rest of Unicode too.
const text = (maxLength: number) =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom('"', "\\", "\n", "\t", "\u0001", "\u001f", "\u007f", "/", "\u2028", "é", "😀"),
        fc.string({ unit: "binary", maxLength: 2 })
      ),
      { maxLength }
    )
    .map((parts) => parts.join("").slice(0, maxLength))
    .filter(isStorableText)

const documentFor = (key: string): fc.Arbitrary<FetchedDocument> =>
  fc.record({
    documentKey: fc.constant(key),
    vendorReceivableId: fc.option(text(12), { nil: null }),
    amountCents: fc.integer({ min: -1_000_000_00, max: 1_000_000_000_00 }),
    currency: arbitraryCurrency,
    receivableDate: arbitraryIsoDate,
    dueDate: fc.option(arbitraryIsoDate, { nil: null }),
    portalStatus: fc.oneof(fc.constantFrom("Submitted", "Approved", "Paid", "On hold"), text(12)),
    poNumber: fc.option(text(12), { nil: null }),
    metadata: fc.dictionary(text(8), text(12), { maxKeys: 4 })
  })

const keys = ["a", "b", "c"]
// A pair's names, a first answer and a second one in which some documents changed.
const scenario = fc.record({
  vendor: text(20).filter((name) => name.length > 0),
  debtor: text(20).filter((name) => name.length > 0),
  first: fc.tuple(...keys.map(documentFor)),
  second: fc.tuple(...keys.map(documentFor))
})

layer(TestLayer, { timeout: 300_000, excludeTestServices: true })("event payloads built by PostgreSQL", (it) => {
  it.effect("are the text core plans, byte for byte, for created and updated receivables", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const store = yield* PairStore
      const ids = yield* IdSource
      for (const { vendor, debtor, first, second } of fc.sample(scenario, { numRuns: 25, seed: 20261126 })) {
        const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Payloads') RETURNING id`
        const [v] = yield* sql<{
          id: string
        }>`INSERT INTO vendors (org_id, name) VALUES (${org!.id}, ${vendor}) RETURNING id`
        const [d] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES (${debtor}) RETURNING id`
        const [row] = yield* sql<{ id: string }>`
          INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
          VALUES (${org!.id}, ${v!.id}, ${d!.id}, 'simulator', '{}', now() + interval '1 day') RETURNING id`
        const pair = yield* store.get(row!.id)
        const planned: Array<PlannedEvent> = []
        // The second answer keeps one document as it was: its receivable is left unchanged.
        for (const documents of [first, [...first.slice(0, 1), ...second.slice(1)]]) {
          yield* Effect.scoped(
            Effect.gen(function* () {
              const session = yield* store.session(pair, "payloads", yield* DateTime.now)
              const current = yield* session.receivablesByKeys(keys)
              const plan = planPairSync(current, documents, {
                refs: pair.refs,
                now: session.at,
                newReceivableId: ids.receivableId
              })
              yield* session.writeChunk(plan)
              yield* session.finish({ counts: noCounts, quarantine: [], nextSyncAt: session.at })
              planned.push(...plan.events)
            })
          )
        }
        const written = yield* sql<{ type: string; data: string }>`
          SELECT e.type, e.data::text AS data FROM events e JOIN event_batches b ON b.id = e.batch
          WHERE e.org_id = ${org!.id} ORDER BY b.first_sequence + e.ordinal`
        assert.isTrue(planned.some((event) => event.type === "receivable.created"))
        assert.isTrue(planned.some((event) => event.type === "receivable.updated"))
        assert.deepStrictEqual(
          written.map((event) => [event.type, event.data]),
          planned.map((event) => [event.type, JSON.stringify(event.data)])
        )
      }
    }).pipe(Effect.orDie)
  )
})
