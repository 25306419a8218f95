/**
 * The contract's harness over PostgreSQL: pairs seeded and read back with SQL of its own (not
 * the adapter's mappings, so that the two cannot agree on a mistake), in the test file's database.
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgEventFeed from "../../adapters/postgres/PgEventFeed.ts"
import * as PgPairRows from "../../adapters/postgres/PgPairRows.ts"
import * as PgPairStore from "../../adapters/postgres/PgPairStore.ts"
import type { ReceivableState } from "../../core/receivables/domain/Resources.ts"
import { type Pair, PairStore } from "../../core/receivables/ports/PairStore.ts"
import type { ReceivableId } from "../../core/shared/domain/Ids.ts"
import { waitingForLock } from "../support/LockWaits.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { PairStoreHarness, type StoredPair } from "./PairStore.harness.ts"

// The adapter's own row, as it reads receivables, plus the time a sync last touched one.
interface ReceivableRow extends PgPairRows.ReceivableRow {
  readonly updated_at: Date
}

interface RunRow {
  readonly worker: string
  readonly outcome: "succeeded" | "failed"
  readonly fetched: number
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly quarantined: number
  readonly error: string | null
}

const harness = Layer.effect(
  PairStoreHarness,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* PairStore

    const addPair = Effect.fnUntraced(function* (options: {
      readonly dueInSeconds: number
      readonly paused?: boolean
      readonly sameOrganizationAs?: Pair
    }) {
      const [org] =
        options.sameOrganizationAs === undefined
          ? yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Contract') RETURNING id`
          : [{ id: options.sameOrganizationAs.orgId }]
      const [vendor] = yield* sql<{ id: string }>`
        INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'V') RETURNING id`
      const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES ('D') RETURNING id`
      const [pair] = yield* sql<{ id: string }>`
        INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at, paused_at)
        VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, 'simulator',
          now() + ${options.dueInSeconds} * interval '1 second', ${options.paused === true ? sql`now()` : null})
        RETURNING id`
      return yield* store.get(pair!.id)
    }, Effect.orDie)

    const importReceivable = (pair: Pair, r: { id: ReceivableId; documentKey: string; state: ReceivableState }) =>
      Effect.orDie(sql`
        INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, vendor_receivable_id,
          amount_cents, currency, receivable_date, due_date, status, portal_status, po_number, metadata, detected_at,
          updated_at)
        VALUES (${pair.orgId}, ${r.id}, ${pair.id}, ${pair.refs.vendor.id}, ${pair.refs.debtor.id}, ${r.documentKey},
          ${r.state.vendorReceivableId}, ${r.state.amountCents}, ${r.state.currency}, ${r.state.receivableDate},
          ${r.state.dueDate}, ${r.state.status}, ${r.state.portalStatus}, ${r.state.poNumber},
          ${JSON.stringify(r.state.metadata)}::json, now(), now())`)

    const stored = Effect.fnUntraced(function* (pair: Pair) {
      const receivables = yield* sql<ReceivableRow>`
        SELECT id, document_key, vendor_receivable_id, amount_cents::text, currency, receivable_date::text,
          due_date::text, status, portal_status, po_number, metadata, detected_at, updated_at
        FROM receivables WHERE integration_id = ${pair.id} ORDER BY document_key COLLATE "C"`
      const history = yield* sql<{ receivable_id: string; changes: StoredPair["history"][number]["changes"] }>`
        SELECT h.receivable_id, h.changes FROM receivable_history h
        JOIN receivables r ON r.org_id = h.org_id AND r.id = h.receivable_id
        WHERE r.integration_id = ${pair.id} ORDER BY h.id`
      const events = yield* sql<{ tag: string }>`
        SELECT e.data->>'tag' AS tag FROM events e
        JOIN event_batches b ON b.id = e.batch
        JOIN receivables r ON r.org_id = e.org_id AND r.id = e.receivable_id
        WHERE r.integration_id = ${pair.id} ORDER BY b.first_sequence + e.ordinal`
      const runs = yield* sql<RunRow>`
        SELECT worker, outcome, fetched, created, updated, unchanged, quarantined, error
        FROM sync_runs WHERE integration_id = ${pair.id} ORDER BY id`
      const [schedule] = yield* sql<{ next_sync_at: Date; lease_owner: string | null; consecutive_failures: number }>`
        SELECT next_sync_at, lease_owner, consecutive_failures FROM integrations WHERE id = ${pair.id}`
      return {
        receivables: receivables.map((row) => {
          const { detectedAt: _, ...receivable } = PgPairRows.toPairReceivable(row)
          return { ...receivable, updatedAt: row.updated_at.getTime() }
        }),
        history: history.map((row) => ({ receivableId: row.receivable_id, changes: row.changes })),
        events: events.map((row) => row.tag),
        runs: runs.map(({ worker, outcome, error, ...counts }) => ({
          worker,
          outcome,
          counts: outcome === "succeeded" ? counts : null,
          error
        })),
        nextSyncAt: schedule!.next_sync_at.getTime(),
        leaseOwner: schedule!.lease_owner,
        consecutiveFailures: schedule!.consecutive_failures
      } satisfies StoredPair
    }, Effect.orDie)

    return PairStoreHarness.of({
      reset: Effect.orDie(sql`UPDATE integrations SET paused_at = now() WHERE paused_at IS NULL`),
      addPair,
      importReceivable,
      stored,
      expireRuns: Effect.orDie(sql`UPDATE sync_leases SET expires_at = now() - interval '1 second'`),
      runsLeft: Effect.orDie(
        Effect.map(
          sql<{ n: number }>`SELECT (SELECT count(*) FROM sync_leases) + (SELECT count(*) FROM sync_staging) AS n`,
          ([row]) => Number(row!.n)
        )
      ),
      expireLease: (pair) =>
        Effect.orDie(sql`UPDATE integrations SET lease_expires_at = now() - interval '1 second' WHERE id = ${pair.id}`),
      // Whatever lock the store takes, the session waits for it.
      sessionWaiting: (pair) =>
        waitingForLock(`a session of pair ${pair.id} waiting for another`).pipe(
          Effect.provideService(SqlClient.SqlClient, sql)
        )
    })
  })
)

export const layer = harness.pipe(
  Layer.provideMerge(Layer.merge(PgPairStore.layer, PgEventFeed.layer)),
  Layer.provideMerge(TestDatabase.layer)
)
