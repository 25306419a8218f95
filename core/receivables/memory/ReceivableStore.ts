/**
 * `ReceivableStore` in memory, over the memory world's `ReceivablesState`: the twin of the PostgreSQL read path
 * for embedders and fast tests, held to the same contract
 * (`test/contracts/ReceivableStore.contract.ts`): org-scoped reads, list order `detected_at` then
 * id, keyset paging, history newest first, a pair's next sync shared by its receivables, the
 * watermark by the Clock and the marks of syncs in flight. It reads what the memory `PairStore`'s
 * syncs and the memory `DirectoryStore` wrote; `MemoryReceivables.seed` puts rows in directly, as
 * an import would have left them. Ids are found in any letter case, as PostgreSQL's `uuid` type
 * finds them.
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Semaphore } from "effect"
import type { DebtorId, OrgId, PairId, ReceivableId, VendorId } from "../../shared/domain/Ids.ts"
import { nextVerifiedSince } from "../../shared/domain/ListQuery.ts"
import { compareText, idKey, rowKey } from "../../shared/memory/Keys.ts"
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
import {
  addHistory,
  addRun,
  type PairRow,
  pairsOf,
  putPair,
  putReceivable,
  type ReceivableRow,
  ReceivablesState,
  type ReceivableTables,
  receivablesOf
} from "./ReceivablesState.ts"

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
  readonly id: PairId
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
  readonly pairId: PairId
}
/** A receivable of a pair; its vendor and debtor are the pair's. */
export interface SeedReceivable extends ReceivableState {
  readonly id: ReceivableId
  readonly orgId: OrgId
  readonly pairId: PairId
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

const millis = DateTime.toEpochMillis
const byNameThenId = (a: Vendor | Debtor, b: Vendor | Debtor) => compareText(a.name, b.name) || compareText(a.id, b.id)
const inListOrder = (a: ReceivableRow, b: ReceivableRow) =>
  millis(a.detectedAt) - millis(b.detectedAt) || compareText(a.id, b.id)

// Newest first; of entries at the same instant, the later written first.
const historyOf = (tables: ReceivableTables, r: ReceivableRow, limit: number): ReadonlyArray<HistoryEntry> =>
  [...(tables.history.get(rowKey(r.orgId, r.id)) ?? [])]
    .sort((a, b) => millis(b.changedAt) - millis(a.changedAt) || b.written - a.written)
    .slice(0, Math.max(0, limit))
    .map(({ changedAt, changes }) => ({ changedAt, changes }))

/** A receivable as the read path answers it, with its history and metadata if asked. */
export const receivableOf = (
  tables: ReceivableTables,
  r: ReceivableRow,
  expand: { readonly history: Option.Option<number>; readonly metadata: boolean }
): Receivable => {
  const pair = tables.pairs.get(r.pairId)!
  const { metadata, ...fields } = r.state
  return {
    ...fields,
    id: r.id as ReceivableId,
    object: "receivable",
    vendor: { id: pair.vendorId as VendorId, name: tables.vendors.get(pair.vendorId)!.name },
    debtor: { id: pair.debtorId as DebtorId, name: tables.debtors.get(pair.debtorId)!.name },
    detectedAt: r.detectedAt,
    updatedAt: r.updatedAt,
    estimatedNextUpdateAt: pair.paused ? null : pair.nextSyncAt,
    ...(Option.isSome(expand.history) ? { history: historyOf(tables, r, expand.history.value) } : {}),
    ...(expand.metadata ? { metadata } : {})
  }
}

/**
 * The organization's receivables that the filter keeps, in no order: read through its pairs, as
 * PostgreSQL reads them through `org_id`, so that other organizations' rows cost nothing.
 */
export const filteredReceivables = (
  tables: ReceivableTables,
  org: OrgId,
  filter: ReceivableFilter
): Array<ReceivableRow> =>
  pairsOf(tables, org)
    .filter(
      (pair) =>
        (filter.vendorId === undefined || pair.vendorId === idKey(filter.vendorId)) &&
        (filter.debtorId === undefined || pair.debtorId === idKey(filter.debtorId))
    )
    .flatMap((pair) => receivablesOf(tables, pair.id))
    .filter(
      (r) =>
        (filter.status === undefined || r.state.status === filter.status) &&
        (filter.updatedSince === undefined || millis(r.updatedAt) >= millis(filter.updatedSince))
    )

const make = Effect.gen(function* () {
  const tables = yield* ReceivablesState
  const { vendors, debtors, pairs, receivables } = tables

  const fault = (message: string) => Effect.die(new Error(`MemoryReceivables.seed: ${message}`))
  const seedRows = (rows: ReceivableRows): Effect.Effect<void> =>
    Effect.suspend(() => {
      for (const v of rows.vendors ?? []) vendors.set(idKey(v.id), { ...v, id: idKey(v.id), orgId: idKey(v.orgId) })
      for (const d of rows.debtors ?? []) debtors.set(idKey(d.id), { ...d, id: idKey(d.id) })
      for (const p of rows.pairs ?? []) {
        if (vendors.get(idKey(p.vendorId))?.orgId !== idKey(p.orgId)) return fault(`pair ${p.id}: no such vendor`)
        if (!debtors.has(idKey(p.debtorId))) return fault(`pair ${p.id}: no such debtor`)
        putPair(tables, {
          id: idKey(p.id),
          orgId: idKey(p.orgId),
          vendorId: idKey(p.vendorId),
          debtorId: idKey(p.debtorId),
          connector: p.connector,
          config: {},
          interval: Duration.hours(1),
          deadline: null,
          paused: p.paused,
          nextSyncAt: p.nextSyncAt,
          lastOutcome: p.lastOutcome ?? null,
          lastError: null,
          consecutiveFailures: 0,
          syncStartedAt: p.syncStartedAt ?? null,
          lock: Semaphore.makeUnsafe(1)
        })
      }
      for (const r of rows.receivables ?? []) {
        if (pairs.get(idKey(r.pairId))?.orgId !== idKey(r.orgId)) return fault(`receivable ${r.id}: no such pair`)
        const { id, orgId, pairId, detectedAt, updatedAt, ...state } = r
        putReceivable(tables, {
          id,
          orgId: idKey(orgId),
          pairId: idKey(pairId),
          documentKey: id,
          state,
          detectedAt,
          updatedAt
        })
      }
      for (const h of rows.history ?? []) {
        const at = rowKey(h.orgId, h.receivableId)
        if (!receivables.has(at)) return fault(`history of ${h.receivableId}: no such receivable`)
        addHistory(tables, at, { changedAt: h.changedAt, changes: h.changes })
      }
      for (const { orgId, pairId, ...run } of rows.runs ?? []) {
        if (pairs.get(idKey(pairId))?.orgId !== idKey(orgId)) return fault(`run of ${pairId}: no such pair`)
        addRun(tables, idKey(pairId), { ...run, worker: "seed", fetched: 0, quarantine: [] })
      }
      return Effect.void
    })

  const listReceivables = Effect.fnUntraced(function* (org: OrgId, request: ReceivablesPageRequest) {
    // The cursor's place is its own, whatever the filter says of it now.
    const cursor = request.startingAfter === undefined ? undefined : receivables.get(rowKey(org, request.startingAfter))
    if (request.startingAfter !== undefined && cursor === undefined) {
      return yield* new StartingAfterNotFound({ id: request.startingAfter })
    }
    const all = filteredReceivables(tables, org, request.filter).sort(inListOrder)
    const following = cursor === undefined ? all : all.filter((r) => inListOrder(r, cursor) > 0)
    const { offset, limit } = request.window
    const now = yield* DateTime.now
    const marks = pairsOf(tables, org).flatMap((p) => (p.syncStartedAt !== null ? [p.syncStartedAt] : []))
    return {
      totalCount: all.length,
      followingCount: following.length,
      items: following.slice(offset, offset + limit).map((r) => receivableOf(tables, r, request)),
      nextVerifiedSince: nextVerifiedSince(now, marks)
    }
  })

  const continuePage = (org: OrgId, request: ReceivablesPageRequest) =>
    Effect.map(listReceivables(org, request), ({ items, followingCount }) => ({
      items,
      followingCount: Math.min(followingCount, request.window.offset + request.window.limit + 1)
    }))

  const getReceivable = (org: OrgId, id: ReceivableId, historyLimit: number) =>
    Effect.sync(() =>
      Option.map(Option.fromNullishOr(receivables.get(rowKey(org, id))), (r) =>
        receivableOf(tables, r, { history: Option.some(historyLimit), metadata: true })
      )
    )

  // The earliest next sync of the unpaused pairs among `of`.
  const nextUpdate = (of: ReadonlyArray<PairRow>) =>
    of.reduce<DateTime.Utc | null>(
      (earliest, p) =>
        p.paused || p.nextSyncAt === null
          ? earliest
          : earliest === null
            ? p.nextSyncAt
            : DateTime.min(earliest, p.nextSyncAt),
      null
    )

  // The organization's pairs that have receivables, of the vendor and the debtor if given.
  const billing = (
    org: OrgId,
    filter: { readonly vendorId?: string | undefined; readonly debtorId?: string | undefined }
  ) =>
    pairsOf(tables, org).filter(
      (p) =>
        (filter.vendorId === undefined || p.vendorId === idKey(filter.vendorId)) &&
        (filter.debtorId === undefined || p.debtorId === idKey(filter.debtorId)) &&
        (tables.documents.get(p.id)?.size ?? 0) > 0
    )

  const listVendors = (org: OrgId, filter: { readonly debtorId?: DebtorId | undefined }) =>
    Effect.sync(() => {
      const own = pairsOf(tables, org)
      const billed = filter.debtorId === undefined ? undefined : new Set(billing(org, filter).map((p) => p.vendorId))
      return [...vendors.values()]
        .filter((v) => v.orgId === idKey(org) && (billed === undefined || billed.has(v.id)))
        .map(
          (v): Vendor => ({
            id: v.id,
            object: "vendor",
            name: v.name,
            createdAt: v.createdAt,
            estimatedNextUpdateAt: nextUpdate(own.filter((p) => p.vendorId === v.id))
          })
        )
        .sort(byNameThenId)
    })

  const listDebtors = (org: OrgId, filter: { readonly vendorId?: VendorId | undefined }) =>
    Effect.sync(() => {
      const own = pairsOf(tables, org)
      const billed = new Set(billing(org, filter).map((p) => p.debtorId))
      return Array.from(billed, (id) => debtors.get(id)!)
        .map(
          (d): Debtor => ({
            id: d.id,
            object: "debtor",
            name: d.name,
            createdAt: d.createdAt,
            estimatedNextUpdateAt: nextUpdate(own.filter((p) => p.debtorId === d.id))
          })
        )
        .sort(byNameThenId)
    })

  // The newest finished run: the latest start, and of runs started together the later stored.
  const lastSync = (pair: PairRow): LastSync | null => {
    let newest: Omit<LastSync, "errorClass"> | null = null
    for (const { startedAt, finishedAt, outcome, created, updated, unchanged, quarantined, error } of tables.runs.get(
      pair.id
    ) ?? []) {
      if (finishedAt === null || (outcome !== "succeeded" && outcome !== "failed")) continue
      if (newest === null || millis(startedAt) >= millis(newest.startedAt)) {
        newest = { startedAt, finishedAt, outcome, created, updated, unchanged, quarantined, error }
      }
    }
    return newest === null ? null : { ...newest, ...RunError.forConsumers(newest.error) }
  }

  const listIntegrations = (org: OrgId, filter: IntegrationFilter) =>
    Effect.sync(() =>
      pairsOf(tables, org)
        .filter(
          (p) =>
            (filter.vendorId === undefined || p.vendorId === idKey(filter.vendorId)) &&
            (filter.debtorId === undefined || p.debtorId === idKey(filter.debtorId))
        )
        .map(
          (p): Integration => ({
            id: p.id as PairId,
            object: "integration",
            vendor: { id: p.vendorId as VendorId, name: vendors.get(p.vendorId)!.name },
            debtor: { id: p.debtorId as DebtorId, name: debtors.get(p.debtorId)!.name },
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
    store: ReceivableStore.of({
      listReceivables,
      continuePage,
      getReceivable,
      listVendors,
      listDebtors,
      listIntegrations
    }),
    seeding: MemoryReceivables.of({ seed: seedRows })
  }
})

/** The memory store and its seeding, over the state. */
export const layerMemory: Layer.Layer<ReceivableStore | MemoryReceivables, never, ReceivablesState> =
  Layer.effectContext(
    Effect.map(make, ({ store, seeding }) =>
      Context.make(ReceivableStore, store).pipe(Context.add(MemoryReceivables, seeding))
    )
  )
