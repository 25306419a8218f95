/**
 * `DirectoryStore` in memory, over the memory world's `ReceivablesState`: the twin of the PostgreSQL store for
 * embedders and fast tests, held to the same contract (`test/contracts/DirectoryStore.contract.ts`).
 * It refuses, as defects, what the tables' constraints refuse (an empty name, a pair whose vendor
 * or debtor is not stored). Sync runs are written by the sync (the memory `PairStore`), or put in
 * by `MemoryDirectory.addRun` with every quarantined document the run kept. Ids are found in any
 * letter case, as PostgreSQL's `uuid` type finds them. Depends on `effect` and core only.
 */
import { Context, DateTime, Effect, Layer, Option, Semaphore } from "effect"
import { SecureRandom } from "effect/crypto"
import type { DebtorId, OrgId, PairId, VendorId } from "../../shared/domain/Ids.ts"
import { compareText, idKey } from "../../shared/memory/Keys.ts"
import {
  type DebtorRecord,
  DirectoryStore,
  type IntegrationRecord,
  type IntegrationRow,
  quarantineShown,
  type SyncRunRecord,
  type VendorRecord
} from "../ports/DirectoryStore.ts"
import { addRun, type PairRow, pairsOf, putPair, ReceivablesState, type ReceivableTables } from "./ReceivablesState.ts"

/** Seeds the memory store with what other writers (the sync) store. */
export class MemoryDirectory extends Context.Service<
  MemoryDirectory,
  { readonly addRun: (id: PairId, run: SyncRunRecord) => Effect.Effect<void> }
>()("core/memory/MemoryDirectory") {}

const byNameThenId = (a: { name: string; id: string }, b: { name: string; id: string }) =>
  compareText(a.name, b.name) || compareText(a.id, b.id)

const byPair = (a: IntegrationRecord, b: IntegrationRecord) =>
  compareText(a.vendor.name, b.vendor.name) || compareText(a.debtor.name, b.debtor.name) || compareText(a.id, b.id)

const fault = (message: string) => Effect.die(new Error(message))
const newId = <A extends string>() => SecureRandom.uuidV4Unsafe() as A

/** A pair as the directory shows it, its vendor's and debtor's names joined in. */
const integrationRecord = (tables: ReceivableTables, pair: PairRow): IntegrationRecord => ({
  id: pair.id as PairId,
  orgId: pair.orgId as OrgId,
  vendor: { id: pair.vendorId as VendorId, name: tables.vendors.get(pair.vendorId)?.name ?? "" },
  debtor: { id: pair.debtorId as DebtorId, name: tables.debtors.get(pair.debtorId)?.name ?? "" },
  connector: pair.connector,
  interval: pair.interval,
  deadline: pair.deadline,
  paused: pair.paused,
  nextSyncAt: pair.paused ? null : pair.nextSyncAt,
  lastOutcome: pair.lastOutcome,
  lastError: pair.lastError,
  consecutiveFailures: pair.consecutiveFailures
})

const make = Effect.gen(function* () {
  const tables = yield* ReceivablesState
  const { vendors, debtors, pairs, runs } = tables

  const insertVendor = Effect.fn("MemoryDirectoryStore.insertVendor")(function* (org: OrgId, name: string) {
    if (name === "") return yield* fault("a vendor's name must not be empty")
    const vendor: VendorRecord = { id: newId(), orgId: idKey(org), name, createdAt: yield* DateTime.now }
    vendors.set(vendor.id, vendor)
    return vendor
  })

  const findVendor = (org: OrgId, id: VendorId) =>
    Effect.sync(() => Option.filter(Option.fromNullishOr(vendors.get(idKey(id))), (v) => v.orgId === idKey(org)))

  const listVendors = (org: OrgId) =>
    Effect.sync(() => [...vendors.values()].filter((v) => v.orgId === idKey(org)).sort(byNameThenId))

  const insertDebtor = Effect.fn("MemoryDirectoryStore.insertDebtor")(function* (name: string) {
    if (name === "") return yield* fault("a debtor's name must not be empty")
    const debtor: DebtorRecord = { id: newId(), name, createdAt: yield* DateTime.now }
    debtors.set(debtor.id, debtor)
    return debtor
  })

  const findDebtor = (id: DebtorId) => Effect.sync(() => Option.fromNullishOr(debtors.get(idKey(id))))

  const listDebtors = Effect.sync(() => [...debtors.values()].sort(byNameThenId))

  const findIntegration = (id: PairId) =>
    Effect.sync(() => Option.map(Option.fromNullishOr(pairs.get(idKey(id))), (pair) => integrationRecord(tables, pair)))

  const insertIntegration = Effect.fn("MemoryDirectoryStore.insertIntegration")(function* (row: IntegrationRow) {
    const vendor = Option.getOrUndefined(yield* findVendor(row.org, row.vendor))
    const debtor = Option.getOrUndefined(yield* findDebtor(row.debtor))
    if (vendor === undefined || debtor === undefined)
      return yield* fault("an integration's vendor and debtor are stored first")
    // A vendor is its organization's: its pairs are among the organization's.
    const taken = pairsOf(tables, vendor.orgId).some((p) => p.vendorId === vendor.id && p.debtorId === debtor.id)
    if (taken) return Option.none<IntegrationRecord>()
    const pair: PairRow = {
      id: newId(),
      orgId: vendor.orgId,
      vendorId: vendor.id,
      debtorId: debtor.id,
      connector: row.connector,
      config: row.config,
      interval: row.interval,
      deadline: row.deadline,
      paused: false,
      nextSyncAt: row.nextSyncAt,
      lastOutcome: null,
      lastError: null,
      consecutiveFailures: 0,
      syncStartedAt: null,
      lock: Semaphore.makeUnsafe(1)
    }
    putPair(tables, pair)
    return Option.some(integrationRecord(tables, pair))
  })

  const listIntegrations = (org: OrgId) =>
    Effect.sync(() =>
      pairsOf(tables, org)
        .map((p) => integrationRecord(tables, p))
        .sort(byPair)
    )

  const recentRuns = (org: OrgId, id: PairId, limit: number) =>
    Effect.sync(() =>
      pairs.get(idKey(id))?.orgId === idKey(org)
        ? (runs.get(idKey(id)) ?? [])
            .map((run, order) => ({ run, order }))
            .sort(
              (a, b) =>
                DateTime.toEpochMillis(b.run.startedAt) - DateTime.toEpochMillis(a.run.startedAt) || b.order - a.order
            )
            .slice(0, Math.max(0, limit))
            .map(({ run: { worker: _, ...run } }) => ({ ...run, quarantine: run.quarantine.slice(0, quarantineShown) }))
        : []
    )

  const setPaused = (id: PairId, paused: boolean, at: DateTime.Utc) =>
    Effect.sync(() => {
      const found = pairs.get(idKey(id))
      if (found === undefined) return Option.none<IntegrationRecord>()
      // The planned next sync is kept through a pause, so resuming brings nothing forward; only a
      // pair that never had one (none is stored without) would be due at `at`.
      const changed = { ...found, paused, nextSyncAt: found.nextSyncAt ?? at }
      pairs.set(found.id, changed)
      return Option.some(integrationRecord(tables, changed))
    })

  // Checked and set in one synchronous step, so no other mark comes between them.
  const markManualSync = (id: PairId, at: DateTime.Utc, since: DateTime.Utc) =>
    Effect.sync(() => {
      const found = pairs.get(idKey(id))
      if (found === undefined) return false
      if (found.manualSyncAt !== undefined && DateTime.isGreaterThan(found.manualSyncAt, since)) return false
      pairs.set(found.id, { ...found, manualSyncAt: at })
      return true
    })

  const seedRun = (id: PairId, run: SyncRunRecord) =>
    Effect.suspend(() => {
      if (!pairs.has(idKey(id))) return fault(`no integration ${id} to add a run to`)
      addRun(tables, idKey(id), { ...run, worker: "seed" })
      return Effect.void
    })

  return {
    store: DirectoryStore.of({
      insertVendor,
      findVendor,
      listVendors,
      insertDebtor,
      findDebtor,
      listDebtors,
      insertIntegration,
      findIntegration,
      listIntegrations,
      recentRuns,
      setPaused,
      markManualSync
    }),
    seeding: MemoryDirectory.of({ addRun: seedRun })
  }
})

/** The memory store and its seeding, over the state. */
export const layerMemory: Layer.Layer<DirectoryStore | MemoryDirectory, never, ReceivablesState> = Layer.effectContext(
  Effect.map(make, ({ store, seeding }) =>
    Context.make(DirectoryStore, store).pipe(Context.add(MemoryDirectory, seeding))
  )
)
