/**
 * The world the `ReceivableStore` contract generates (two organizations, their vendors, shared
 * debtors, pairs with their sync runs, receivables and history) and the model every store is held
 * to: the plain reading of spec sections 4 and 5 and docs/decisions.md over those rows, written
 * for clarity, not speed. Instants come from a handful of hours so that ties in `detected_at`,
 * `changed_at` and a run's start are common.
 */
import { randomBytes, randomUUID } from "node:crypto"
import { DateTime, Schema } from "effect"
import fc from "fast-check"
import { Integration, Receivable } from "../../core/receivables/domain/Resources.ts"
import * as RunError from "../../core/receivables/domain/RunError.ts"
import { statuses } from "../../core/receivables/domain/Status.ts"
import type { ReceivableRows, SeedReceivable, SeedSyncRun } from "../../core/receivables/memory/ReceivableStore.ts"
import type { IntegrationFilter, ReceivableFilter } from "../../core/receivables/ports/ReceivableStore.ts"
import type { DebtorId, OrgId, PairId, ReceivableId, VendorId } from "../../core/shared/domain/Ids.ts"
import { arbitraryState } from "../support/arbitraries.ts"

const base = DateTime.makeUnsafe("2026-03-01T00:00:00Z")
export const hour = (n: number) => DateTime.add(base, { hours: n })
const instant = fc.integer({ min: 0, max: 3 }).map(hour)
// Names that sort alike under every collation, with repeats so that ids break ties.
const name = fc.constantFrom("Acme", "Globex", "Initech")
const fieldValue = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null))
const changes = fc.dictionary(
  fc.constantFrom("status", "amount_cents", "due_date", "metadata.x"),
  fc.record({ from: fieldValue, to: fieldValue }),
  { minKeys: 1, maxKeys: 3 }
)
const count = fc.nat({ max: 1_000 })
const run = fc.oneof(
  fc.record({ outcome: fc.constant("succeeded" as const), error: fc.constant(null) }),
  fc.record({ outcome: fc.constant("failed" as const), error: fc.constantFrom("portal answered 503", "timed out") })
)

const millis = DateTime.toEpochMillis
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** List order: `detected_at`, then id. */
export const inListOrder = (a: SeedReceivable, b: SeedReceivable) =>
  millis(a.detectedAt) - millis(b.detectedAt) || byText(a.id, b.id)

/** A filter over either organization's vendors and debtors, asked with ids in either letter case. */
export const filterPlan = fc.record({
  second: fc.boolean(),
  upper: fc.boolean(),
  vendor: fc.option(fc.nat(), { nil: undefined }),
  debtor: fc.option(fc.nat(), { nil: undefined }),
  status: fc.option(fc.constantFrom(...statuses), { nil: undefined }),
  updatedSince: fc.option(fc.integer({ min: 0, max: 4 }).map(hour), { nil: undefined })
})
export type FilterPlan = typeof filterPlan extends fc.Arbitrary<infer A> ? A : never

/** The same id in upper case: ids name their rows whatever the letter case, as a uuid column does. */
const shout = <A extends string>(id: A, upper: boolean) => (upper ? (id.toUpperCase() as A) : id)

/**
 * The organization and filter a plan names, and the same as a store is asked them. Vendors and
 * debtors come from either organization: another's vendor simply matches nothing.
 */
export const filterOf = (world: World, plan: FilterPlan) => {
  const org = world.orgs[plan.second ? 1 : 0]
  const vendorId = plan.vendor === undefined ? undefined : world.vendors[plan.vendor % world.vendors.length]!.id
  const debtorId = plan.debtor === undefined ? undefined : world.debtors[plan.debtor % world.debtors.length]!.id
  const filter = { vendorId, debtorId, status: plan.status, updatedSince: plan.updatedSince }
  const asked = {
    org: shout(org, plan.upper),
    filter: {
      ...filter,
      vendorId: vendorId && shout(vendorId, plan.upper),
      debtorId: debtorId && shout(debtorId, plan.upper)
    }
  }
  return { org, filter, asked }
}

/** The shape of a world; ids are drawn fresh when it is built, so runs never collide. */
export const worldPlan = fc.record({
  vendors: fc.array(fc.record({ second: fc.boolean(), name, createdAt: instant }), { minLength: 1, maxLength: 6 }),
  debtors: fc.array(fc.record({ name, createdAt: instant }), { minLength: 1, maxLength: 4 }),
  pairs: fc.array(
    fc.record({
      vendor: fc.nat(),
      debtor: fc.nat(),
      nextSyncAt: fc.option(instant, { nil: null }),
      paused: fc.boolean(),
      connector: fc.constantFrom("simulator", "file", "coupa"),
      lastOutcome: fc.constantFrom(null, "succeeded" as const, "failed" as const),
      runs: fc.array(
        fc.record({ run, startedAt: instant, created: count, updated: count, unchanged: count, quarantined: count }),
        { maxLength: 3 }
      )
    }),
    { minLength: 1, maxLength: 8 }
  ),
  receivables: fc.array(
    fc.record({
      pair: fc.nat(),
      state: arbitraryState,
      detectedAt: instant,
      updatedAt: instant,
      history: fc.array(fc.record({ changedAt: instant, changes }), { maxLength: 3 })
    }),
    { maxLength: 16 }
  )
})
export type WorldPlan = typeof worldPlan extends fc.Arbitrary<infer A> ? A : never

export interface World extends Required<{ [K in keyof ReceivableRows]: NonNullable<ReceivableRows[K]> }> {
  readonly orgs: readonly [OrgId, OrgId]
}

const uuid = <A>() => randomUUID() as A
const receivableId = () => `rcv_${randomBytes(16).toString("hex")}` as ReceivableId

export const buildWorld = (plan: WorldPlan): World => {
  const orgs = [uuid<OrgId>(), uuid<OrgId>()] as const
  const vendors = plan.vendors.map((v) => ({
    id: uuid<VendorId>(),
    orgId: orgs[v.second ? 1 : 0],
    name: v.name,
    createdAt: v.createdAt
  }))
  const debtors = plan.debtors.map((d) => ({ id: uuid<DebtorId>(), name: d.name, createdAt: d.createdAt }))
  const pairs = [
    ...new Map(
      plan.pairs.map((p) => {
        const vendor = vendors[p.vendor % vendors.length]!
        const debtor = debtors[p.debtor % debtors.length]!
        const pair = { ...p, id: uuid<PairId>(), orgId: vendor.orgId, vendorId: vendor.id, debtorId: debtor.id }
        return [`${vendor.id}/${debtor.id}`, pair] as const
      })
    ).values()
  ]
  const runs = pairs.flatMap((p) =>
    p.runs.map(
      ({ run, startedAt, ...counts }): SeedSyncRun => ({
        orgId: p.orgId,
        pairId: p.id,
        startedAt,
        finishedAt: DateTime.add(startedAt, { minutes: 1 }),
        ...run,
        ...counts
      })
    )
  )
  const receivables = plan.receivables.map((r) => {
    const pair = pairs[r.pair % pairs.length]!
    return {
      ...r.state,
      id: receivableId(),
      orgId: pair.orgId,
      pairId: pair.id,
      detectedAt: r.detectedAt,
      updatedAt: r.updatedAt
    } satisfies SeedReceivable
  })
  const history = plan.receivables.flatMap((r, index) =>
    r.history.map((h) => ({ orgId: receivables[index]!.orgId, receivableId: receivables[index]!.id, ...h }))
  )
  return {
    orgs,
    vendors,
    debtors,
    pairs: pairs.map(({ id, orgId, vendorId, debtorId, nextSyncAt, paused, connector, lastOutcome }) => ({
      id,
      orgId,
      vendorId,
      debtorId,
      nextSyncAt,
      paused,
      connector,
      lastOutcome
    })),
    receivables,
    history,
    runs
  }
}

/** The receivables of `org` that `filter` keeps, in list order. */
export const modelList = (world: World, org: OrgId, filter: ReceivableFilter): ReadonlyArray<SeedReceivable> =>
  world.receivables
    .filter((r) => {
      const pair = world.pairs.find((p) => p.id === r.pairId)!
      return (
        r.orgId === org &&
        (filter.vendorId === undefined || pair.vendorId === filter.vendorId.toLowerCase()) &&
        (filter.debtorId === undefined || pair.debtorId === filter.debtorId.toLowerCase()) &&
        (filter.status === undefined || r.status === filter.status) &&
        (filter.updatedSince === undefined || millis(r.updatedAt) >= millis(filter.updatedSince))
      )
    })
    .sort(inListOrder)

/** A receivable as the API would encode it, with the expansions asked for. */
export const modelReceivable = (
  world: World,
  r: SeedReceivable,
  expand: { readonly history?: number | undefined; readonly metadata: boolean }
) => {
  const pair = world.pairs.find((p) => p.id === r.pairId)!
  const { orgId: _org, pairId: _pair, metadata, ...fields } = r
  const entries = world.history
    .map((h, order) => ({ h, order }))
    .filter(({ h }) => h.receivableId === r.id && h.orgId === r.orgId)
    .sort((a, b) => millis(b.h.changedAt) - millis(a.h.changedAt) || b.order - a.order)
    .slice(0, expand.history ?? 0)
  return Schema.encodeSync(Receivable)({
    ...fields,
    object: "receivable",
    vendor: { id: pair.vendorId, name: world.vendors.find((v) => v.id === pair.vendorId)!.name },
    debtor: { id: pair.debtorId, name: world.debtors.find((d) => d.id === pair.debtorId)!.name },
    estimatedNextUpdateAt: pair.paused ? null : pair.nextSyncAt,
    ...(expand.history === undefined
      ? {}
      : { history: entries.map(({ h }) => ({ changedAt: h.changedAt, changes: h.changes })) }),
    ...(expand.metadata ? { metadata } : {})
  })
}

/** The organization's pairs that `filter` keeps, as the API encodes them, by vendor name, debtor name, then id. */
export const modelIntegrations = (world: World, org: OrgId, filter: IntegrationFilter) =>
  world.pairs
    .filter(
      (p) =>
        p.orgId === org &&
        (filter.vendorId === undefined || p.vendorId === filter.vendorId.toLowerCase()) &&
        (filter.debtorId === undefined || p.debtorId === filter.debtorId.toLowerCase())
    )
    .map((p) => {
      // The newest run: the latest start; of runs started together, the one recorded last.
      const newest = world.runs
        .filter((r) => r.pairId === p.id)
        .reduce<SeedSyncRun | undefined>(
          (found, r) => (found === undefined || millis(r.startedAt) >= millis(found.startedAt) ? r : found),
          undefined
        )
      const integration: Integration = {
        id: p.id,
        object: "integration",
        vendor: { id: p.vendorId, name: world.vendors.find((v) => v.id === p.vendorId)!.name },
        debtor: { id: p.debtorId, name: world.debtors.find((d) => d.id === p.debtorId)!.name },
        connector: p.connector,
        state: p.paused ? "paused" : p.lastOutcome === "failed" ? "failing" : "active",
        lastSync:
          newest === undefined
            ? null
            : {
                startedAt: newest.startedAt,
                finishedAt: newest.finishedAt,
                outcome: newest.outcome,
                created: newest.created,
                updated: newest.updated,
                unchanged: newest.unchanged,
                quarantined: newest.quarantined,
                ...RunError.forConsumers(newest.error)
              },
        estimatedNextUpdateAt: p.paused ? null : p.nextSyncAt
      }
      return integration
    })
    .sort((a, b) => byText(a.vendor.name, b.vendor.name) || byText(a.debtor.name, b.debtor.name) || byText(a.id, b.id))
    .map((i) => Schema.encodeSync(Integration)(i))

/** The earliest next sync over the organization's unpaused pairs that `of` selects. */
export const modelNextUpdate = (world: World, org: OrgId, of: (pair: World["pairs"][number]) => boolean) =>
  world.pairs
    .filter((p) => p.orgId === org && !p.paused && p.nextSyncAt !== null && of(p))
    .map((p) => p.nextSyncAt!)
    .sort((a, b) => millis(a) - millis(b))[0] ?? null

/** Whether `org` has a receivable of the vendor with the debtor (either left open). */
export const modelBills = (world: World, org: OrgId, vendorId?: string, debtorId?: string) =>
  modelList(world, org, {}).some((r) => {
    const pair = world.pairs.find((p) => p.id === r.pairId)!
    return (
      (vendorId === undefined || pair.vendorId === vendorId) && (debtorId === undefined || pair.debtorId === debtorId)
    )
  })
