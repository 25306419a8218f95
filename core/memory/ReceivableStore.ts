/**
 * `ReceivableStore` in memory: the twin of the PostgreSQL read path for embedders and fast tests,
 * held to the same contract (`test/contracts/ReceivableStore.contract.ts`): org-scoped reads, list
 * order `detected_at` then id, keyset paging, history newest first, a pair's next sync shared by
 * its receivables, the watermark by the Clock. The port only reads, so `MemoryReceivables.seed`
 * puts rows in, as a sync or an import would have left them. Ids are found in any letter case,
 * as PostgreSQL's `uuid` type finds them.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import type { DebtorId, IntegrationId, OrgId, ReceivableId, VendorId } from "../domain/Ids.ts"
import { nextVerifiedSince } from "../domain/ListQuery.ts"
import type {
  Changes,
  Debtor,
  HistoryEntry,
  Integration,
  LastSync,
  Receivable,
  ReceivableState,
  Vendor
} from "../domain/Resources.ts"
import * as RunError from "../domain/RunError.ts"
import {
  type IntegrationFilter,
  type ReceivableFilter,
  ReceivableStore,
  type ReceivablesPageRequest,
  StartingAfterNotFound
} from "../ports/ReceivableStore.ts"

export interface SeedVendor {
  readonly id: VendorId
  readonly orgId: OrgId
  readonly name: string
  readonly createdAt: DateTime.Utc
}
export interface SeedDebtor {
  readonly id: DebtorId
  readonly name: string
  readonly createdAt: DateTime.Utc
}
/** A vendor-debtor pair (integration); its next sync is every one of its receivables' next update. */
export interface SeedPair {
  readonly id: IntegrationId
  readonly orgId: OrgId
  readonly vendorId: VendorId
  readonly debtorId: DebtorId
  /** The connector's kind. */
  readonly connector: string
  readonly nextSyncAt: DateTime.Utc | null
  readonly paused: boolean
  /** How its last run ended; none before the first. */
  readonly lastOutcome?: "succeeded" | "failed" | null | undefined
  /** Set while a sync of the pair is in flight (`integrations.sync_started_at`). */
  readonly syncStartedAt?: DateTime.Utc | null | undefined
}
/** A finished sync run of a pair, as `sync_runs` records it: `error` is the recorded detail. */
export interface SeedSyncRun extends Omit<LastSync, "errorClass"> {
  readonly orgId: OrgId
  readonly pairId: IntegrationId
}
/** A receivable of a pair; its vendor and debtor are the pair's. */
export interface SeedReceivable extends ReceivableState {
  readonly id: ReceivableId
  readonly orgId: OrgId
  readonly pairId: IntegrationId
  readonly detectedAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}
export interface SeedHistory {
  readonly orgId: OrgId
  readonly receivableId: ReceivableId
  readonly changedAt: DateTime.Utc
  readonly changes: Changes
}
/** Rows to add, stored in this order; each row's references must be stored already. */
export interface ReceivableRows {
  readonly vendors?: ReadonlyArray<SeedVendor> | undefined
  readonly debtors?: ReadonlyArray<SeedDebtor> | undefined
  readonly pairs?: ReadonlyArray<SeedPair> | undefined
  readonly receivables?: ReadonlyArray<SeedReceivable> | undefined
  readonly history?: ReadonlyArray<SeedHistory> | undefined
  readonly runs?: ReadonlyArray<SeedSyncRun> | undefined
}

/** Seeds the memory store. */
export class MemoryReceivables extends Context.Service<
  MemoryReceivables,
  { readonly seed: (rows: ReceivableRows) => Effect.Effect<void> }
>()("core/memory/MemoryReceivables") {}

/** Text in code point order, as PostgreSQL's C collation (the embedded server's) orders it. */
const compareText = (a: string, b: string): number => {
  const x = Array.from(a, (c) => c.codePointAt(0)!)
  const y = Array.from(b, (c) => c.codePointAt(0)!)
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!
  return x.length - y.length
}
const millis = DateTime.toEpochMillis
const key = <A extends string>(id: A) => id.toLowerCase() as A
const byNameThenId = (a: Vendor | Debtor, b: Vendor | Debtor) => compareText(a.name, b.name) || compareText(a.id, b.id)
const inListOrder = (a: SeedReceivable, b: SeedReceivable) =>
  millis(a.detectedAt) - millis(b.detectedAt) || compareText(a.id, b.id)

const make = Effect.sync(() => {
  const vendors = new Map<string, SeedVendor>()
  const debtors = new Map<string, SeedDebtor>()
  const pairs = new Map<string, SeedPair>()
  // Receivable ids are unique per organization only, as the table's key is (org_id, id).
  const receivables = new Map<string, SeedReceivable>()
  const history = new Map<string, Array<HistoryEntry>>()
  // Per pair, in the order stored.
  const runs = new Map<string, Array<SeedSyncRun>>()
  const rowKey = (org: string, id: string) => `${key(org)}/${id}`

  const fault = (message: string) => Effect.die(new Error(`MemoryReceivables.seed: ${message}`))
  const seedRows = (rows: ReceivableRows): Effect.Effect<void> =>
    Effect.suspend(() => {
      for (const v of rows.vendors ?? []) vendors.set(key(v.id), { ...v, id: key(v.id), orgId: key(v.orgId) })
      for (const d of rows.debtors ?? []) debtors.set(key(d.id), { ...d, id: key(d.id) })
      for (const p of rows.pairs ?? []) {
        if (vendors.get(key(p.vendorId))?.orgId !== key(p.orgId)) return fault(`pair ${p.id}: no such vendor`)
        if (!debtors.has(key(p.debtorId))) return fault(`pair ${p.id}: no such debtor`)
        const pair = { ...p, id: key(p.id), orgId: key(p.orgId), vendorId: key(p.vendorId), debtorId: key(p.debtorId) }
        pairs.set(pair.id, pair)
      }
      for (const r of rows.receivables ?? []) {
        if (pairs.get(key(r.pairId))?.orgId !== key(r.orgId)) return fault(`receivable ${r.id}: no such pair`)
        receivables.set(rowKey(r.orgId, r.id), { ...r, orgId: key(r.orgId), pairId: key(r.pairId) })
      }
      for (const h of rows.history ?? []) {
        const at = rowKey(h.orgId, h.receivableId)
        if (!receivables.has(at)) return fault(`history of ${h.receivableId}: no such receivable`)
        history.set(at, [...(history.get(at) ?? []), { changedAt: h.changedAt, changes: h.changes }])
      }
      for (const run of rows.runs ?? []) {
        const pairId = key(run.pairId)
        if (pairs.get(pairId)?.orgId !== key(run.orgId)) return fault(`run of ${run.pairId}: no such pair`)
        runs.set(pairId, [...(runs.get(pairId) ?? []), { ...run, orgId: key(run.orgId), pairId }])
      }
      return Effect.void
    })

  // Newest first; of entries at the same instant, the later stored first.
  const historyOf = (r: SeedReceivable, limit: number): ReadonlyArray<HistoryEntry> =>
    (history.get(rowKey(r.orgId, r.id)) ?? [])
      .map((entry, order) => ({ entry, order }))
      .sort((a, b) => millis(b.entry.changedAt) - millis(a.entry.changedAt) || b.order - a.order)
      .slice(0, Math.max(0, limit))
      .map(({ entry }) => entry)

  const toReceivable = (r: SeedReceivable, expand: { history: Option.Option<number>; metadata: boolean }) => {
    const pair = pairs.get(r.pairId)!
    const { orgId: _org, pairId: _pair, metadata, ...fields } = r
    const receivable: Receivable = {
      ...fields,
      object: "receivable",
      vendor: { id: pair.vendorId, name: vendors.get(pair.vendorId)!.name },
      debtor: { id: pair.debtorId, name: debtors.get(pair.debtorId)!.name },
      estimatedNextUpdateAt: pair.paused ? null : pair.nextSyncAt,
      ...(Option.isSome(expand.history) ? { history: historyOf(r, expand.history.value) } : {}),
      ...(expand.metadata ? { metadata } : {})
    }
    return receivable
  }

  const matches = (org: OrgId, filter: ReceivableFilter) => (r: SeedReceivable) => {
    const pair = pairs.get(r.pairId)!
    return (
      r.orgId === key(org) &&
      (filter.vendorId === undefined || pair.vendorId === key(filter.vendorId)) &&
      (filter.debtorId === undefined || pair.debtorId === key(filter.debtorId)) &&
      (filter.status === undefined || r.status === filter.status) &&
      (filter.updatedSince === undefined || millis(r.updatedAt) >= millis(filter.updatedSince))
    )
  }

  const listReceivables = Effect.fnUntraced(function* (org: OrgId, request: ReceivablesPageRequest) {
    // The cursor's place is its own, whatever the filter says of it now.
    const cursor = request.startingAfter === undefined ? undefined : receivables.get(rowKey(org, request.startingAfter))
    if (request.startingAfter !== undefined && cursor === undefined) {
      return yield* new StartingAfterNotFound({ id: request.startingAfter })
    }
    const all = [...receivables.values()].filter(matches(org, request.filter)).sort(inListOrder)
    const following = cursor === undefined ? all : all.filter((r) => inListOrder(r, cursor) > 0)
    const { offset, limit } = request.window
    const now = yield* DateTime.now
    const marks = [...pairs.values()].flatMap((p) =>
      p.orgId === key(org) && p.syncStartedAt != null ? [p.syncStartedAt] : []
    )
    return {
      totalCount: all.length,
      followingCount: following.length,
      items: following.slice(offset, offset + limit).map((r) => toReceivable(r, request)),
      nextVerifiedSince: nextVerifiedSince(now, marks)
    }
  })

  const getReceivable = (org: OrgId, id: ReceivableId, historyLimit: number) =>
    Effect.sync(() =>
      Option.map(Option.fromNullishOr(receivables.get(rowKey(org, id))), (r) =>
        toReceivable(r, { history: Option.some(historyLimit), metadata: true })
      )
    )

  // The earliest next sync of the organization's unpaused pairs that `of` selects.
  const nextUpdate = (org: OrgId, of: (pair: SeedPair) => boolean) => {
    const next = [...pairs.values()]
      .filter((p) => p.orgId === key(org) && !p.paused && p.nextSyncAt !== null && of(p))
      .map((p) => p.nextSyncAt!)
    return next.reduce<DateTime.Utc | null>(
      (earliest, at) => (earliest === null ? at : DateTime.min(earliest, at)),
      null
    )
  }

  const billed = (org: OrgId, vendorId: string | undefined, debtorId: string | undefined) =>
    [...receivables.values()].some((r) => {
      const pair = pairs.get(r.pairId)!
      return (
        r.orgId === key(org) &&
        (vendorId === undefined || pair.vendorId === key(vendorId)) &&
        (debtorId === undefined || pair.debtorId === key(debtorId))
      )
    })

  const listVendors = (org: OrgId, filter: { readonly debtorId?: DebtorId | undefined }) =>
    Effect.sync(() =>
      [...vendors.values()]
        .filter((v) => v.orgId === key(org) && (filter.debtorId === undefined || billed(org, v.id, filter.debtorId)))
        .map(
          (v): Vendor => ({
            id: v.id,
            object: "vendor",
            name: v.name,
            createdAt: v.createdAt,
            estimatedNextUpdateAt: nextUpdate(org, (p) => p.vendorId === v.id)
          })
        )
        .sort(byNameThenId)
    )

  const listDebtors = (org: OrgId, filter: { readonly vendorId?: VendorId | undefined }) =>
    Effect.sync(() =>
      [...debtors.values()]
        .filter((d) => billed(org, filter.vendorId, d.id))
        .map(
          (d): Debtor => ({
            id: d.id,
            object: "debtor",
            name: d.name,
            createdAt: d.createdAt,
            estimatedNextUpdateAt: nextUpdate(org, (p) => p.debtorId === d.id)
          })
        )
        .sort(byNameThenId)
    )

  // The newest run: the latest start, and of runs started together the later stored.
  const lastSync = (pair: SeedPair): LastSync | null => {
    const newest = (runs.get(pair.id) ?? []).reduce<SeedSyncRun | undefined>(
      (found, run) => (found === undefined || millis(run.startedAt) >= millis(found.startedAt) ? run : found),
      undefined
    )
    if (newest === undefined) return null
    const { orgId: _org, pairId: _pair, ...run } = newest
    return { ...run, ...RunError.forConsumers(run.error) }
  }

  const listIntegrations = (org: OrgId, filter: IntegrationFilter) =>
    Effect.sync(() =>
      [...pairs.values()]
        .filter(
          (p) =>
            p.orgId === key(org) &&
            (filter.vendorId === undefined || p.vendorId === key(filter.vendorId)) &&
            (filter.debtorId === undefined || p.debtorId === key(filter.debtorId))
        )
        .map(
          (p): Integration => ({
            id: p.id,
            object: "integration",
            vendor: { id: p.vendorId, name: vendors.get(p.vendorId)!.name },
            debtor: { id: p.debtorId, name: debtors.get(p.debtorId)!.name },
            connector: p.connector,
            state: p.paused ? "paused" : p.lastOutcome === "failed" ? "failing" : "active",
            lastSync: lastSync(p),
            estimatedNextUpdateAt: p.paused ? null : p.nextSyncAt
          })
        )
        .sort(
          (a, b) =>
            compareText(a.vendor.name, b.vendor.name) ||
            compareText(a.debtor.name, b.debtor.name) ||
            compareText(a.id, b.id)
        )
    )

  return {
    store: ReceivableStore.of({ listReceivables, getReceivable, listVendors, listDebtors, listIntegrations }),
    seeding: MemoryReceivables.of({ seed: seedRows })
  }
})

/** The memory store and its seeding, sharing one state per layer build. */
export const layerMemory: Layer.Layer<ReceivableStore | MemoryReceivables> = Layer.effectContext(
  Effect.map(make, ({ store, seeding }) =>
    Context.make(ReceivableStore, store).pipe(Context.add(MemoryReceivables, seeding))
  )
)
