/**
 * `PairStore` in memory, over the memory world's `ReceivablesState`: the twin of the PostgreSQL store for
 * embedders and fast tests, holding to the same contract (`test/contracts/PairStore.contract.ts`):
 * claims are leased, the longest overdue first, and a sync's session (`PairSession.ts`) shows
 * nothing to others until it finishes. `MemoryPairs` seeds and inspects it. Depends on `effect`
 * and core only.
 */
import { Context, DateTime, type Duration, Effect, Layer, Semaphore } from "effect"
import type { DebtorId, OrgId, PairId, VendorId } from "../../shared/domain/Ids.ts"
import { idKey, rowKey } from "../../shared/memory/Keys.ts"
import type { FetchedDocument, PairReceivable, PlannedEvent } from "../domain/PairSync.ts"
import type { Changes } from "../domain/Resources.ts"
import {
  type FailedRun,
  type FinishedRun,
  type Pair,
  PairNotFound,
  PairStore,
  type RunLease,
  type StagedRun
} from "../ports/PairStore.ts"
import { asPairReceivable, type MemoryRun, openSession } from "./PairSession.ts"
import {
  addRun,
  type PairRow,
  putPair,
  putReceivable,
  ReceivablesState,
  type ReceivableTables,
  type RunRow,
  receivablesOf,
  updatePair
} from "./ReceivablesState.ts"

/** A run's lease and what it staged (`sync_leases` and `sync_staging`). */
interface LeaseRow {
  readonly pairId: string
  expiresAt: DateTime.Utc
  /** Held by the session applying the run: not taken away, even once it has run out. */
  applying: boolean
  readonly documents: Array<FetchedDocument>
}

/** A pair's schedule and lease as the store keeps them. */
export interface MemoryPair {
  readonly integration: Pair
  /** The planned next sync; a paused pair keeps it, unclaimed, for its resumption. */
  readonly nextSyncAt: DateTime.Utc | null
  readonly paused: boolean
  readonly lease?: { readonly owner: string; readonly expiresAt: DateTime.Utc } | undefined
  readonly lastOutcome?: "succeeded" | "failed" | undefined
  readonly lastError?: string | undefined
}

export interface StoredReceivable extends PairReceivable {
  readonly updatedAt: DateTime.Utc
}

export interface StoredHistory {
  readonly receivableId: string
  readonly changedAt: DateTime.Utc
  readonly changes: Changes
}

export interface StoredRun {
  readonly worker: string
  readonly startedAt: DateTime.Utc
  readonly finishedAt: DateTime.Utc
  readonly outcome: "succeeded" | "failed"
  /** A successful run's totals and the quarantined documents it kept. */
  readonly run?: Pick<FinishedRun, "counts" | "quarantine"> | undefined
  readonly error?: string | undefined
}

/** Everything stored of one pair; receivables in document key order, the rest as written. */
export interface PairContents {
  readonly pair: MemoryPair
  readonly receivables: ReadonlyArray<StoredReceivable>
  readonly history: ReadonlyArray<StoredHistory>
  readonly events: ReadonlyArray<PlannedEvent>
  readonly runs: ReadonlyArray<StoredRun>
}

/** Seeds and inspects the memory store. */
export class MemoryPairs extends Context.Service<
  MemoryPairs,
  {
    /**
     * Adds a pair (with its vendor and debtor, when they are not stored yet), or replaces its
     * schedule and lease (to pause it, move its next sync, expire its lease).
     */
    readonly put: (pair: MemoryPair) => Effect.Effect<void>
    /** Adds receivables to a pair outside any sync, as an import would. */
    readonly importReceivables: (id: PairId, receivables: ReadonlyArray<PairReceivable>) => Effect.Effect<void>
    readonly contents: (id: PairId) => Effect.Effect<PairContents, PairNotFound>
    /** Runs holding a lease, live or run out, and the documents they staged. */
    readonly runsInFlight: Effect.Effect<{ readonly runs: number; readonly staged: number }>
    /** Lets every run's lease run out, as a dead worker's does. */
    readonly expireRuns: Effect.Effect<void>
  }
>()("core/memory/MemoryPairs") {}

const byKey = (a: StoredReceivable, b: StoredReceivable) =>
  a.documentKey < b.documentKey ? -1 : a.documentKey > b.documentKey ? 1 : 0

/** The pair's integration as the sync engine reads it, its vendor's and debtor's names joined in. */
const integrationOf = (tables: ReceivableTables, pair: PairRow): Pair => ({
  id: pair.id as PairId,
  orgId: pair.orgId as OrgId,
  refs: {
    vendor: { id: pair.vendorId as VendorId, name: tables.vendors.get(pair.vendorId)?.name ?? "" },
    debtor: { id: pair.debtorId as DebtorId, name: tables.debtors.get(pair.debtorId)?.name ?? "" }
  },
  connector: pair.connector,
  config: pair.config,
  interval: pair.interval,
  deadline: pair.deadline ?? undefined,
  consecutiveFailures: pair.consecutiveFailures
})

/** A run as the sync recorded it; runs put in by other writers read as failed when not succeeded. */
const storedRun = (row: RunRow): StoredRun => {
  const { worker, startedAt, finishedAt, error, quarantine, ...counts } = row
  const base = { worker, startedAt, finishedAt: finishedAt ?? startedAt }
  if (row.outcome !== "succeeded") return { ...base, outcome: "failed", ...(error === null ? {} : { error }) }
  const { fetched, created, updated, unchanged, quarantined } = counts
  return {
    ...base,
    outcome: "succeeded",
    run: { counts: { fetched, created, updated, unchanged, quarantined }, quarantine }
  }
}

const make = Effect.gen(function* () {
  const tables = yield* ReceivablesState
  const { pairs } = tables
  const leases = new Map<string, LeaseRow>()
  let runs = 0
  const held = (row: LeaseRow, now: DateTime.Utc) => !DateTime.isLessThan(row.expiresAt, now)

  const rowOf = (id: string) =>
    Effect.suspend(() => {
      const row = pairs.get(idKey(id))
      return row === undefined ? Effect.fail(new PairNotFound({ id })) : Effect.succeed(row)
    })
  const update = (id: string, change: Partial<PairRow>) => updatePair(tables, id, change)
  const leaseHeld = (pair: PairRow, now: DateTime.Utc) =>
    pair.lease !== undefined && !DateTime.isLessThan(pair.lease.expiresAt, now)

  const put = (pair: MemoryPair) =>
    Effect.map(DateTime.now, (now) => {
      const { integration } = pair
      const id = idKey(integration.id)
      const orgId = idKey(integration.orgId)
      const { vendor, debtor } = integration.refs
      if (!tables.vendors.has(idKey(vendor.id))) {
        tables.vendors.set(idKey(vendor.id), { id: idKey(vendor.id), orgId, name: vendor.name, createdAt: now })
      }
      if (!tables.debtors.has(idKey(debtor.id))) {
        tables.debtors.set(idKey(debtor.id), { id: idKey(debtor.id), name: debtor.name, createdAt: now })
      }
      const existing = pairs.get(id)
      putPair(tables, {
        id,
        orgId,
        vendorId: idKey(vendor.id),
        debtorId: idKey(debtor.id),
        connector: integration.connector,
        config: integration.config,
        interval: integration.interval,
        deadline: integration.deadline ?? null,
        consecutiveFailures: integration.consecutiveFailures,
        paused: pair.paused,
        nextSyncAt: pair.nextSyncAt,
        lease: pair.lease,
        lastOutcome: pair.lastOutcome ?? null,
        lastError: pair.lastError ?? null,
        syncStartedAt: existing?.syncStartedAt ?? null,
        lock: existing?.lock ?? Semaphore.makeUnsafe(1)
      })
    })

  const importReceivables = (id: PairId, receivables: ReadonlyArray<PairReceivable>) =>
    Effect.gen(function* () {
      const pair = yield* Effect.orDie(rowOf(id))
      const now = yield* DateTime.now
      for (const r of receivables) {
        putReceivable(tables, { ...r, orgId: pair.orgId, pairId: pair.id, detectedAt: now, updatedAt: now })
      }
    })

  const contents = (id: PairId) =>
    Effect.map(rowOf(id), (pair) => {
      const receivables = receivablesOf(tables, pair.id)
      return {
        pair: {
          integration: integrationOf(tables, pair),
          nextSyncAt: pair.nextSyncAt,
          paused: pair.paused,
          lease: pair.lease,
          ...(pair.lastOutcome === null ? {} : { lastOutcome: pair.lastOutcome }),
          ...(pair.lastError === null ? {} : { lastError: pair.lastError })
        },
        receivables: receivables.map(asPairReceivable).sort(byKey),
        history: receivables
          .flatMap((r) =>
            (tables.history.get(rowKey(r.orgId, r.id)) ?? []).map((entry) => ({ ...entry, receivableId: r.id }))
          )
          .sort((a, b) => a.written - b.written)
          .map(({ receivableId, changedAt, changes }) => ({ receivableId, changedAt, changes })),
        events: [...(tables.pairEvents.get(pair.id) ?? [])],
        runs: (tables.runs.get(pair.id) ?? []).map(storedRun)
      }
    })

  const claimDue = (worker: string, limit: number, lease: Duration.Duration) =>
    Effect.map(DateTime.now, (now) => {
      const due = [...pairs.values()]
        .filter(
          (p) => !p.paused && p.nextSyncAt !== null && !DateTime.isGreaterThan(p.nextSyncAt, now) && !leaseHeld(p, now)
        )
        .sort(
          (a, b) =>
            DateTime.toEpochMillis(a.nextSyncAt!) - DateTime.toEpochMillis(b.nextSyncAt!) || (a.id < b.id ? -1 : 1)
        )
        .slice(0, Math.max(0, limit))
      for (const p of due) update(p.id, { lease: { owner: worker, expiresAt: DateTime.addDuration(now, lease) } })
      return due.map((p) => integrationOf(tables, p))
    })

  const renewClaims = (worker: string, ids: ReadonlyArray<PairId>, lease: Duration.Duration) =>
    Effect.map(DateTime.now, (now) => {
      for (const id of ids) {
        const pair = pairs.get(idKey(id))
        if (pair?.lease?.owner === worker) {
          update(pair.id, { lease: { owner: worker, expiresAt: DateTime.addDuration(now, lease) } })
        }
      }
    })

  const get = (id: string) => Effect.map(rowOf(id), (pair) => integrationOf(tables, pair))

  // A run whose lease ran out is dead (or will find out at its apply): what it staged goes.
  const startRun = (integration: Pair, _worker: string, lease: Duration.Duration) =>
    Effect.gen(function* () {
      const now = yield* DateTime.now
      for (const [id, row] of leases) if (!row.applying && !held(row, now)) leases.delete(id)
      const id = `run-${++runs}`
      const row: LeaseRow = {
        pairId: idKey(integration.id),
        expiresAt: DateTime.addDuration(now, lease),
        applying: false,
        documents: []
      }
      leases.set(id, row)
      yield* Effect.addFinalizer(() => Effect.sync(() => leases.delete(id)))
      const run: RunLease = {
        id,
        stage: (documents) =>
          Effect.sync(() => {
            if (leases.get(id) === row) row.documents.push(...documents)
          }),
        renew: Effect.map(DateTime.now, (at) => {
          if (leases.get(id) !== row || !held(row, at)) return false
          row.expiresAt = DateTime.addDuration(at, lease)
          return true
        })
      }
      return run
    })

  const memoryRun = (staged: StagedRun): MemoryRun => {
    const id = staged.lease.id
    const row = leases.get(id)
    return {
      id,
      documents: row?.documents ?? [],
      hold: (now) => {
        if (row === undefined || leases.get(id) !== row || !held(row, now)) return false
        row.applying = true
        return true
      },
      letGo: () => {
        if (row !== undefined) row.applying = false
      },
      end: () => leases.delete(id)
    }
  }

  const recordFailure = (integration: Pair, run: FailedRun) =>
    Effect.gen(function* () {
      const pair = yield* Effect.orDie(rowOf(integration.id))
      const now = yield* DateTime.now
      update(pair.id, {
        consecutiveFailures: pair.consecutiveFailures + 1,
        nextSyncAt: run.retryAt,
        lease: undefined,
        lastOutcome: "failed",
        lastError: run.error
      })
      addRun(tables, pair.id, {
        worker: run.worker,
        startedAt: run.startedAt,
        finishedAt: now,
        outcome: "failed",
        fetched: 0,
        created: 0,
        updated: 0,
        unchanged: 0,
        quarantined: 0,
        quarantine: [],
        error: run.error,
        ...(run.portalRetryAt === undefined ? {} : { portalRetryAt: run.portalRetryAt })
      })
    })

  const countOverdue = (lateBy: Duration.Duration) =>
    Effect.map(DateTime.now, (now) => {
      const before = DateTime.subtractDuration(now, lateBy)
      return [...pairs.values()].filter(
        (p) => !p.paused && p.nextSyncAt !== null && DateTime.isLessThan(p.nextSyncAt, before)
      ).length
    })

  const releaseClaims = (worker: string, ids: ReadonlyArray<PairId>) =>
    Effect.sync(() => {
      for (const id of ids) {
        const pair = pairs.get(idKey(id))
        if (pair !== undefined && pair.lease?.owner === worker) update(pair.id, { lease: undefined })
      }
    })

  const session = (integration: Pair, worker: string, startedAt: DateTime.Utc, run?: StagedRun) =>
    Effect.flatMap(Effect.orDie(rowOf(integration.id)), (pair) =>
      openSession(tables, pair, worker, startedAt, run === undefined ? undefined : memoryRun(run))
    )

  return {
    store: PairStore.of({
      claimDue,
      renewClaims,
      get,
      startRun,
      session,
      recordFailure,
      countOverdue,
      releaseClaims
    }),
    pairs: MemoryPairs.of({
      put,
      importReceivables,
      contents,
      expireRuns: Effect.map(DateTime.now, (now) => {
        for (const row of leases.values()) row.expiresAt = DateTime.subtract(now, { seconds: 1 })
      }),
      runsInFlight: Effect.sync(() => ({
        runs: leases.size,
        staged: [...leases.values()].reduce((sum, row) => sum + row.documents.length, 0)
      }))
    })
  }
})

/** The memory store and its seeding, over the state. */
export const layerMemory: Layer.Layer<PairStore | MemoryPairs, never, ReceivablesState> = Layer.effectContext(
  Effect.map(make, ({ store, pairs }) => Context.make(PairStore, store).pipe(Context.add(MemoryPairs, pairs)))
)
