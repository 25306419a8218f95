/**
 * The sync in two phases over PostgreSQL, with a worker dying at a random step of either phase
 * (`test/support/SyncCrashes.ts`): the pair is wholly old or wholly new, the next sync after the
 * dead run's lease ran out completes it with exactly the core's plan (receivables, history, the
 * events feed in feed order), and no lease or staged document is left.
 */
import { layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as RandomIds from "../../../adapters/ids/RandomIds.ts"
import * as Connectors from "../../../adapters/portals/Connectors.ts"
import type { ReceivableRow } from "../../../adapters/postgres/PgPairRows.ts"
import { toPairReceivable } from "../../../adapters/postgres/PgPairRows.ts"
import * as PgPairStore from "../../../adapters/postgres/PgPairStore.ts"
import * as EnvironmentSecrets from "../../../adapters/secrets/EnvironmentSecrets.ts"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import type { Changes } from "../../../core/receivables/domain/Resources.ts"
import { type Pair, PairStore } from "../../../core/receivables/ports/PairStore.ts"
import { defaultDeadline, SyncEngine } from "../../../core/receivables/services/SyncEngine.ts"
import { scripted } from "../../core/services/SyncKit.ts"
import { CrashWorld, crashing, crashProperty } from "../../support/SyncCrashes.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const world = Layer.effect(
  CrashWorld,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* PairStore
    const config = (documents: ReadonlyArray<FetchedDocument>) => JSON.stringify({ documents })

    const addPair = Effect.fnUntraced(function* (documents: ReadonlyArray<FetchedDocument>) {
      const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Crash') RETURNING id`
      const [vendor] = yield* sql<{ id: string }>`
        INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'V') RETURNING id`
      const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('D') RETURNING id`
      const [pair] = yield* sql<{ id: string }>`
        INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, config, next_sync_at)
        VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, 'scripted', ${config(documents)}::jsonb,
          now() + interval '1 day')
        RETURNING id`
      return yield* store.get(pair!.id)
    }, Effect.orDie)

    const rescript = Effect.fnUntraced(function* (pair: Pair, documents: ReadonlyArray<FetchedDocument>) {
      yield* sql`UPDATE integrations SET config = ${config(documents)}::jsonb WHERE id = ${pair.id}`
      return yield* store.get(pair.id)
    }, Effect.orDie)

    // Events in the order of the organization's feed (one pair per organization here).
    const view = Effect.fnUntraced(function* (pair: Pair) {
      const receivables = yield* sql<ReceivableRow>`
        SELECT id, document_key, vendor_receivable_id, amount_cents, currency, receivable_date, due_date, status,
          portal_status, po_number, metadata, detected_at
        FROM receivables WHERE org_id = ${pair.orgId} AND integration_id = ${pair.id} ORDER BY document_key`
      const history = yield* sql<{ receivable_id: string; changes: Changes }>`
        SELECT h.receivable_id, h.changes FROM receivable_history h
        JOIN receivables r ON r.org_id = h.org_id AND r.id = h.receivable_id
        WHERE h.org_id = ${pair.orgId} AND r.integration_id = ${pair.id} ORDER BY h.id`
      const events = yield* sql<{ type: string; receivable_id: string }>`
        SELECT e.type, e.receivable_id FROM events e JOIN event_batches b ON b.id = e.batch
        WHERE e.org_id = ${pair.orgId} ORDER BY b.first_sequence, e.ordinal`
      return {
        receivables: receivables
          .map(toPairReceivable)
          .map(({ id, documentKey, state }) => ({ id, documentKey, state })),
        history: history.map((h) => ({ receivableId: h.receivable_id, changes: h.changes })),
        events: events.map((e) => ({ type: e.type, receivableId: e.receivable_id }))
      }
    }, Effect.orDie)

    return CrashWorld.of({
      addPair,
      rescript,
      view,
      expireRuns: Effect.orDie(sql`UPDATE sync_leases SET expires_at = now() - interval '1 second'`),
      leftovers: Effect.orDie(
        Effect.map(
          sql<{ n: number }>`SELECT (SELECT count(*) FROM sync_leases) + (SELECT count(*) FROM sync_staging) AS n`,
          ([row]) => Number(row!.n)
        )
      )
    })
  })
)

layer(
  world.pipe(
    Layer.provideMerge(
      SyncEngine.layerWith({ deadline: defaultDeadline, chunkSize: 2 }).pipe(
        Layer.provideMerge(crashing(PgPairStore.layer)),
        Layer.provide([Connectors.layerOf([scripted]), RandomIds.layer, EnvironmentSecrets.layer])
      )
    ),
    Layer.provideMerge(TestDatabase.layer)
  ),
  { timeout: 120_000 }
)("the sync under crashes, PostgreSQL", (it) => {
  it.effect(
    "a worker dying at any step of either phase leaves its pair wholly old or new; the next sync completes it",
    () => crashProperty(40)
  )
})
