/**
 * `DirectoryStore` in memory: the twin of the PostgreSQL store for embedders and fast tests, held
 * to the same contract (`test/contracts/DirectoryStore.contract.ts`). It refuses, as defects, what
 * the tables' constraints refuse (an empty name, a pair whose vendor or debtor is not stored).
 * Sync runs are written by the sync, not through this port: `MemoryDirectory.addRun` puts them
 * in, with every quarantined document the run kept. Ids are found in any letter case, as PostgreSQL's `uuid` type finds them. Depends on
 * `effect` and core only.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { SecureRandom } from "effect/crypto"
import type { DebtorId, IntegrationId, OrgId, VendorId } from "../domain/Ids.ts"
import {
  type DebtorRecord,
  DirectoryStore,
  type IntegrationRecord,
  type IntegrationRow,
  quarantineShown,
  type SyncRunRecord,
  type VendorRecord
} from "../ports/DirectoryStore.ts"

/** Seeds the memory store with what other writers (the sync) store. */
export class MemoryDirectory extends Context.Service<
  MemoryDirectory,
  { readonly addRun: (id: IntegrationId, run: SyncRunRecord) => Effect.Effect<void> }
>()("core/memory/MemoryDirectory") {}

/** Text in code point order, as PostgreSQL's C collation (the embedded server's) orders it. */
const compareText = (a: string, b: string): number => {
  const x = Array.from(a, (c) => c.codePointAt(0)!)
  const y = Array.from(b, (c) => c.codePointAt(0)!)
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!
  return x.length - y.length
}

const byNameThenId = (a: { name: string; id: string }, b: { name: string; id: string }) =>
  compareText(a.name, b.name) || compareText(a.id, b.id)

const byPair = (a: IntegrationRecord, b: IntegrationRecord) =>
  compareText(a.vendor.name, b.vendor.name) || compareText(a.debtor.name, b.debtor.name) || compareText(a.id, b.id)

const fault = (message: string) => Effect.die(new Error(message))
const key = (id: string) => id.toLowerCase()
const newId = <A extends string>() => SecureRandom.uuidV4Unsafe() as A

const make = Effect.sync(() => {
  const vendors = new Map<string, VendorRecord>()
  const debtors = new Map<string, DebtorRecord>()
  const integrations = new Map<string, IntegrationRecord>()
  const runs = new Map<string, Array<SyncRunRecord>>()

  const insertVendor = Effect.fn("MemoryDirectoryStore.insertVendor")(function* (org: OrgId, name: string) {
    if (name === "") return yield* fault("a vendor's name must not be empty")
    const vendor: VendorRecord = { id: newId(), orgId: key(org) as OrgId, name, createdAt: yield* DateTime.now }
    vendors.set(vendor.id, vendor)
    return vendor
  })

  const findVendor = (org: OrgId, id: VendorId) =>
    Effect.sync(() => Option.filter(Option.fromNullishOr(vendors.get(key(id))), (v) => v.orgId === key(org)))

  const listVendors = (org: OrgId) =>
    Effect.sync(() => [...vendors.values()].filter((v) => v.orgId === key(org)).sort(byNameThenId))

  const insertDebtor = Effect.fn("MemoryDirectoryStore.insertDebtor")(function* (name: string) {
    if (name === "") return yield* fault("a debtor's name must not be empty")
    const debtor: DebtorRecord = { id: newId(), name, createdAt: yield* DateTime.now }
    debtors.set(debtor.id, debtor)
    return debtor
  })

  const findDebtor = (id: DebtorId) => Effect.sync(() => Option.fromNullishOr(debtors.get(key(id))))

  const listDebtors = Effect.sync(() => [...debtors.values()].sort(byNameThenId))

  const findIntegration = (id: IntegrationId) => Effect.sync(() => Option.fromNullishOr(integrations.get(key(id))))

  const insertIntegration = Effect.fn("MemoryDirectoryStore.insertIntegration")(function* (row: IntegrationRow) {
    const vendor = Option.getOrUndefined(yield* findVendor(row.org, row.vendor))
    const debtor = Option.getOrUndefined(yield* findDebtor(row.debtor))
    if (vendor === undefined || debtor === undefined)
      return yield* fault("an integration's vendor and debtor are stored first")
    const taken = [...integrations.values()].some((i) => i.vendor.id === vendor.id && i.debtor.id === debtor.id)
    if (taken) return Option.none<IntegrationRecord>()
    const integration: IntegrationRecord = {
      id: newId(),
      orgId: vendor.orgId,
      vendor: { id: vendor.id, name: vendor.name },
      debtor: { id: debtor.id, name: debtor.name },
      connector: row.connector,
      interval: row.interval,
      deadline: row.deadline,
      paused: false,
      nextSyncAt: row.nextSyncAt,
      lastOutcome: null,
      lastError: null,
      consecutiveFailures: 0
    }
    integrations.set(integration.id, integration)
    return Option.some(integration)
  })

  const listIntegrations = (org: OrgId) =>
    Effect.sync(() => [...integrations.values()].filter((i) => i.orgId === key(org)).sort(byPair))

  const recentRuns = (org: OrgId, id: IntegrationId, limit: number) =>
    Effect.sync(() =>
      integrations.get(key(id))?.orgId === key(org)
        ? (runs.get(key(id)) ?? [])
            .map((run, order) => ({ run, order }))
            .sort(
              (a, b) =>
                DateTime.toEpochMillis(b.run.startedAt) - DateTime.toEpochMillis(a.run.startedAt) || b.order - a.order
            )
            .slice(0, Math.max(0, limit))
            .map(({ run }) => ({ ...run, quarantine: run.quarantine.slice(0, quarantineShown) }))
        : []
    )

  const setPaused = (id: IntegrationId, paused: boolean, at: DateTime.Utc) =>
    Effect.sync(() => {
      const found = integrations.get(key(id))
      if (found === undefined) return Option.none<IntegrationRecord>()
      // A paused pair has no next sync; resuming keeps the one it has, or makes it due at `at`.
      const changed = { ...found, paused, nextSyncAt: paused ? null : (found.nextSyncAt ?? at) }
      integrations.set(found.id, changed)
      return Option.some(changed)
    })

  const addRun = (id: IntegrationId, run: SyncRunRecord) =>
    Effect.suspend(() => {
      if (!integrations.has(key(id))) return fault(`no integration ${id} to add a run to`)
      runs.set(key(id), [...(runs.get(key(id)) ?? []), run])
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
      setPaused
    }),
    seeding: MemoryDirectory.of({ addRun })
  }
})

/** The memory store and its seeding, sharing one state per layer build. */
export const layerMemory: Layer.Layer<DirectoryStore | MemoryDirectory> = Layer.effectContext(
  Effect.map(make, ({ store, seeding }) =>
    Context.make(DirectoryStore, store).pipe(Context.add(MemoryDirectory, seeding))
  )
)
