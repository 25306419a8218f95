/**
 * How the `ReceivableStore` contract puts rows in: one `ReceivableSeed` service with two
 * implementations, the memory twin's own seeding and plain SQL inserts for PostgreSQL (the port
 * only reads, and a sync is too much machinery for a read-path contract). Each also provides its
 * store, so a store's test file is one line. `forAll` runs a property over freshly seeded worlds.
 */
import { Context, DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import * as PgReceivableStore from "../../adapters/postgres/PgReceivableStore.ts"
import { states as memoryStates } from "../../core/memory/MemoryStorage.ts"
import * as MemoryReceivableStore from "../../core/receivables/memory/ReceivableStore.ts"
import type { ReceivablesState } from "../../core/receivables/memory/ReceivablesState.ts"
import { ReceivableStore, type ReceivablesPageRequest } from "../../core/receivables/ports/ReceivableStore.ts"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { buildWorld, type World, worldPlan } from "./ReceivableStore.model.ts"

export class ReceivableSeed extends Context.Service<
  ReceivableSeed,
  { readonly seed: (rows: MemoryReceivableStore.ReceivableRows) => Effect.Effect<void> }
>()("test/contracts/ReceivableSeed") {}

/** The memory twin's seeding, with the memory store, over the state the test gives. */
export const memorySeed: Layer.Layer<ReceivableStore | ReceivableSeed, never, ReceivablesState> = Layer.effect(
  ReceivableSeed,
  Effect.map(Effect.service(MemoryReceivableStore.MemoryReceivables), ({ seed }) => ReceivableSeed.of({ seed }))
).pipe(Layer.provideMerge(MemoryReceivableStore.layerMemory))

export const memory: Layer.Layer<ReceivableStore | ReceivableSeed> = memorySeed.pipe(Layer.provide(memoryStates))

const date = (at: DateTime.Utc | null) => (at === null ? null : DateTime.toDateUtc(at))

/** Plain SQL inserts, into the database the test gives. */
export const seedSql = Layer.effect(
  ReceivableSeed,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const insert = <A>(table: string, rows: ReadonlyArray<A> | undefined, row: (a: A) => Record<string, unknown>) =>
      rows === undefined || rows.length === 0
        ? Effect.void
        : sql`INSERT INTO ${sql(table)} ${sql.insert(rows.map(row) as [Record<string, unknown>])}`
    const seed = (rows: MemoryReceivableStore.ReceivableRows) =>
      Effect.gen(function* () {
        const orgs = [...new Set((rows.vendors ?? []).map((v) => v.orgId.toLowerCase()))]
        if (orgs.length > 0) {
          yield* sql`INSERT INTO organizations ${sql.insert(orgs.map((id) => ({ id, name: "Seeded" })) as [{ id: string; name: string }])}
            ON CONFLICT (id) DO NOTHING`
        }
        yield* insert("vendors", rows.vendors, (v) => ({
          id: v.id,
          org_id: v.orgId,
          name: v.name,
          created_at: date(v.createdAt)
        }))
        yield* insert("debtors", rows.debtors, (d) => ({ id: d.id, name: d.name, created_at: date(d.createdAt) }))
        const paused = new Date("2026-01-01T00:00:00Z")
        yield* insert("integrations", rows.pairs, (p) => ({
          id: p.id,
          org_id: p.orgId,
          vendor_id: p.vendorId,
          debtor_id: p.debtorId,
          connector: p.connector,
          next_sync_at: date(p.nextSyncAt),
          paused_at: p.paused ? paused : null,
          last_outcome: p.lastOutcome ?? null,
          sync_started_at: date(p.syncStartedAt ?? null)
        }))
        const pairIds = [...new Set((rows.receivables ?? []).map((r) => r.pairId))]
        const pairs = new Map<string, { vendor_id: string; debtor_id: string }>()
        if (pairIds.length > 0) {
          const found = yield* sql<{ id: string; vendor_id: string; debtor_id: string }>`
            SELECT id, vendor_id, debtor_id FROM integrations WHERE id IN ${sql.in(pairIds)}`
          for (const row of found) pairs.set(row.id, row)
        }
        yield* insert("receivables", rows.receivables, (r) => ({
          org_id: r.orgId,
          id: r.id,
          integration_id: r.pairId,
          vendor_id: pairs.get(r.pairId.toLowerCase())?.vendor_id,
          debtor_id: pairs.get(r.pairId.toLowerCase())?.debtor_id,
          document_key: r.id,
          vendor_receivable_id: r.vendorReceivableId,
          amount_cents: r.amountCents,
          currency: r.currency,
          receivable_date: r.receivableDate,
          due_date: r.dueDate,
          status: r.status,
          portal_status: r.portalStatus,
          po_number: r.poNumber,
          metadata: JSON.stringify(r.metadata),
          detected_at: date(r.detectedAt),
          updated_at: date(r.updatedAt)
        }))
        // One statement numbers its rows in order, so entries at the same instant keep theirs.
        yield* insert("receivable_history", rows.history, (h) => ({
          org_id: h.orgId,
          receivable_id: h.receivableId,
          changed_at: date(h.changedAt),
          changes: JSON.stringify(h.changes)
        }))
        // One statement numbers its runs in order, as runs recorded one after another would be.
        yield* insert("sync_runs", rows.runs, (r) => ({
          org_id: r.orgId,
          integration_id: r.pairId,
          worker: "seed",
          started_at: date(r.startedAt),
          finished_at: date(r.finishedAt),
          outcome: r.outcome,
          created: r.created,
          updated: r.updated,
          unchanged: r.unchanged,
          quarantined: r.quarantined,
          error: r.error
        }))
      }).pipe(Effect.orDie)
    return ReceivableSeed.of({ seed })
  })
)

export const postgres: Layer.Layer<ReceivableStore | ReceivableSeed> = Layer.mergeAll(
  PgReceivableStore.layer,
  seedSql
).pipe(Layer.provide(TestDatabase.layer), Layer.orDie)

export type Services = ReceivableStore | ReceivableSeed

/** Seeds a world for each generated case and runs `body` on it; fails with the counterexample. */
export const forAll = <T, R = Services>(
  arbitrary: fc.Arbitrary<T>,
  body: (world: World, value: T) => Effect.Effect<void, never, R | ReceivableSeed>,
  numRuns = 50
) =>
  Effect.gen(function* () {
    const run = Effect.runPromiseWith(yield* Effect.context<R | ReceivableSeed>())
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(worldPlan, arbitrary, (plan, value) =>
          run(
            Effect.gen(function* () {
              const world = buildWorld(plan)
              yield* (yield* ReceivableSeed).seed(world)
              yield* body(world, value)
            })
          )
        ),
        { numRuns }
      )
    )
  })

/** A page the store must answer: a refused cursor fails the test. */
export const list = (org: OrgId, request: ReceivablesPageRequest) =>
  Effect.flatMap(Effect.service(ReceivableStore), (store) => store.listReceivables(org, request)).pipe(Effect.orDie)
