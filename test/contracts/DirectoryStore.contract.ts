/**
 * The contract of the `DirectoryStore` port, one suite run against every implementation (the
 * in-memory twin, PostgreSQL): `describeDirectoryStore(name, layer, addRun)`, one line per store.
 * The layer also provides the `Organizations` that vendors belong to; `addRun` stores a run as the
 * sync does (runs are not written through this port). Every check makes its own
 * organizations, vendors and debtors, so rows of earlier checks never matter.
 */
import { randomUUID } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, type Layer, Option } from "effect"
import fc from "fast-check"
import type { Quarantined } from "../../core/receivables/domain/PairSync.ts"
import {
  DirectoryStore,
  type IntegrationRecord,
  quarantineShown,
  type SyncRunRecord
} from "../../core/receivables/ports/DirectoryStore.ts"
import type { DebtorId, PairId, VendorId } from "../../core/shared/domain/Ids.ts"
import { Organizations } from "../../core/shared/ports/Organizations.ts"

type Services = DirectoryStore | Organizations

/** Stores a run of the integration as the sync would, with every quarantined document it kept. */
export type AddRun<R> = (id: IntegrationRecord, run: SyncRunRecord) => Effect.Effect<void, never, R>

const forAll = <T, R = Services>(arbitrary: fc.Arbitrary<T>, body: (value: T) => Effect.Effect<void, never, R>) =>
  Effect.gen(function* () {
    const run = Effect.runPromiseWith(yield* Effect.context<R>())
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(arbitrary, (value) => run(body(value))),
        { numRuns: 15 }
      )
    )
  })

// Names that sort alike under every collation, with repeats so that ids break ties.
const name = fc.constantFrom("Acme", "Globex", "Initech")
const at = (minutes: number) => DateTime.add(DateTime.makeUnsafe("2026-03-01T00:00:00Z"), { minutes })
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const byNameThenId = (a: { name: string; id: string }, b: { name: string; id: string }) =>
  compare(a.name, b.name) || compare(a.id, b.id)
const millis = (time: DateTime.Utc | null) => (time === null ? null : DateTime.toEpochMillis(time))
const newOrg = Effect.flatMap(Effect.service(Organizations), (organizations) => organizations.create("Directory Org"))

/** One organization with vendors and debtors of the given names, and an integration per pair asked. */
const world = (vendorNames: ReadonlyArray<string>, debtorNames: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const store = yield* DirectoryStore
    const org = (yield* newOrg).id
    const vendors = yield* Effect.forEach(vendorNames, (n) => store.insertVendor(org, n))
    const debtors = yield* Effect.forEach(debtorNames, (n) => store.insertDebtor(n))
    return { store, org, vendors, debtors }
  })

const row = (org: string, vendor: VendorId, debtor: DebtorId, minutes = 0) => ({
  org: org as IntegrationRecord["orgId"],
  vendor,
  debtor,
  connector: "simulator",
  config: { seed: 1 },
  interval: Duration.minutes(30),
  deadline: minutes % 2 === 0 ? null : Duration.seconds(90),
  nextSyncAt: at(minutes)
})

const emptyRun = (startedAt: DateTime.Utc, outcome: string): SyncRunRecord => ({
  startedAt,
  finishedAt: startedAt,
  outcome,
  fetched: 0,
  created: 0,
  updated: 0,
  unchanged: 0,
  quarantined: 0,
  quarantine: [],
  error: null
})

const quarantinedDocument: fc.Arbitrary<Quarantined> = fc.record({
  documentKey: fc.string({ minLength: 1, maxLength: 12 }),
  reasons: fc.array(fc.constantFrom("amount is not a number", "unknown currency", "no due date"), {
    minLength: 1,
    maxLength: 2
  })
})

export const describeDirectoryStore = <E, R>(
  name_: string,
  storeLayer: Layer.Layer<Services | R, E>,
  addRun: AddRun<R>
) =>
  layer(storeLayer, { excludeTestServices: true, timeout: 120_000 })(`DirectoryStore contract (${name_})`, (it) => {
    it.effect(
      "a run record carries its first quarantined documents with their reasons, in order, and counts them all",
      () =>
        forAll(
          fc.array(fc.tuple(fc.array(quarantinedDocument, { maxLength: 30, size: "max" }), fc.nat({ max: 200 })), {
            minLength: 1,
            maxLength: 3
          }),
          (runs) =>
            Effect.gen(function* () {
              const { store, org, vendors, debtors } = yield* world(["Acme"], ["Globex"])
              const pair = Option.getOrThrow(yield* store.insertIntegration(row(org, vendors[0]!.id, debtors[0]!.id)))
              const stored = runs.map(
                ([quarantine, notKept], index): SyncRunRecord => ({
                  startedAt: at(index),
                  finishedAt: at(index),
                  outcome: "succeeded",
                  fetched: quarantine.length + notKept,
                  created: 0,
                  updated: 0,
                  unchanged: 0,
                  quarantined: quarantine.length + notKept,
                  quarantine,
                  error: null
                })
              )
              for (const run of stored) yield* addRun(pair, run)
              const read = yield* store.recentRuns(org, pair.id, 10)
              assert.deepStrictEqual(
                read.map((run) => ({ quarantined: run.quarantined, quarantine: run.quarantine })),
                stored.toReversed().map((run) => ({
                  quarantined: run.quarantined,
                  quarantine: run.quarantine.slice(0, quarantineShown)
                }))
              )
              // Another organization's reading of the pair finds no run.
              assert.deepStrictEqual(yield* store.recentRuns((yield* newOrg).id, pair.id, 10), [])
            })
        )
    )

    it.effect("a failed run's record keeps the time its portal asked to be left alone until", () =>
      Effect.gen(function* () {
        const { store, org, vendors, debtors } = yield* world(["Acme"], ["Globex"])
        const pair = Option.getOrThrow(yield* store.insertIntegration(row(org, vendors[0]!.id, debtors[0]!.id)))
        const failed = { ...emptyRun(at(0), "failed"), error: "too many requests (429)", portalRetryAt: at(60) }
        yield* addRun(pair, emptyRun(at(-5), "succeeded"))
        yield* addRun(pair, failed)
        assert.deepStrictEqual(yield* store.recentRuns(org, pair.id, 2), [failed, emptyRun(at(-5), "succeeded")])
      })
    )

    it.effect("vendors are stored in their organization, found only there, and listed by name then id", () =>
      forAll(fc.array(name, { minLength: 1, maxLength: 5 }), (names) =>
        Effect.gen(function* () {
          const { store, org, vendors } = yield* world(names, [])
          const other = (yield* newOrg).id
          assert.deepStrictEqual(
            vendors.map((v) => [v.orgId, v.name]),
            names.map((n) => [org, n])
          )
          for (const vendor of vendors) {
            assert.deepStrictEqual(yield* store.findVendor(org, vendor.id), Option.some(vendor))
            assert.deepStrictEqual(
              yield* store.findVendor(org, vendor.id.toUpperCase() as VendorId),
              Option.some(vendor)
            )
            assert.isTrue(Option.isNone(yield* store.findVendor(other, vendor.id)))
          }
          assert.deepStrictEqual(yield* store.listVendors(org), [...vendors].sort(byNameThenId))
          assert.deepStrictEqual(yield* store.listVendors(other), [])
        })
      )
    )

    it.effect("debtors are shared: found by id, and all listed by name then id", () =>
      forAll(fc.array(name, { minLength: 1, maxLength: 4 }), (names) =>
        Effect.gen(function* () {
          const { store, debtors } = yield* world([], names)
          for (const debtor of debtors) assert.deepStrictEqual(yield* store.findDebtor(debtor.id), Option.some(debtor))
          const listed = yield* store.listDebtors
          assert.includeDeepMembers([...listed], debtors)
          assert.deepStrictEqual(listed, [...listed].sort(byNameThenId))
        })
      )
    )

    it.effect("an integration reads back as stored: its pair's names, due at its time, unpaused, never run", () =>
      forAll(fc.integer({ min: 0, max: 600 }), (minutes) =>
        Effect.gen(function* () {
          const { store, org, vendors, debtors } = yield* world(["Acme"], ["Globex"])
          const input = row(org, vendors[0]!.id, debtors[0]!.id, minutes)
          const created = Option.getOrThrow(yield* store.insertIntegration(input))
          assert.deepInclude(created, {
            orgId: org,
            vendor: { id: vendors[0]!.id, name: "Acme" },
            debtor: { id: debtors[0]!.id, name: "Globex" },
            connector: "simulator",
            paused: false,
            lastOutcome: null,
            lastError: null,
            consecutiveFailures: 0
          })
          assert.strictEqual(Duration.toMillis(created.interval), Duration.toMillis(input.interval))
          assert.strictEqual(
            created.deadline && Duration.toMillis(created.deadline),
            input.deadline && Duration.toMillis(input.deadline)
          )
          assert.strictEqual(millis(created.nextSyncAt), millis(input.nextSyncAt))
          assert.deepStrictEqual(yield* store.findIntegration(created.id), Option.some(created))
          assert.deepStrictEqual(yield* store.recentRuns(org, created.id, 10), [])
        })
      )
    )

    it.effect("a pair has one integration: storing a second stores nothing and answers none", () =>
      Effect.gen(function* () {
        const { store, org, vendors, debtors } = yield* world(["Acme"], ["Globex"])
        const first = Option.getOrThrow(yield* store.insertIntegration(row(org, vendors[0]!.id, debtors[0]!.id)))
        assert.isTrue(Option.isNone(yield* store.insertIntegration(row(org, vendors[0]!.id, debtors[0]!.id, 5))))
        assert.deepStrictEqual(yield* store.listIntegrations(org), [first])
      })
    )

    it.effect("an organization lists its integrations by vendor name, debtor name, then id", () =>
      forAll(
        fc.tuple(fc.array(name, { minLength: 1, maxLength: 3 }), fc.array(name, { minLength: 1, maxLength: 3 })),
        ([vn, dn]) =>
          Effect.gen(function* () {
            const { store, org, vendors, debtors } = yield* world(vn, dn)
            const created = yield* Effect.forEach(
              vendors.flatMap((v) => debtors.map((d) => [v, d] as const)),
              ([v, d]) => Effect.map(store.insertIntegration(row(org, v.id, d.id)), Option.getOrThrow)
            )
            const expected = [...created].sort(
              (a, b) =>
                compare(a.vendor.name, b.vendor.name) || compare(a.debtor.name, b.debtor.name) || compare(a.id, b.id)
            )
            assert.deepStrictEqual(yield* store.listIntegrations(org), expected)
            assert.deepStrictEqual(yield* store.listIntegrations((yield* newOrg).id), [])
          })
      )
    )

    it.effect("a paused pair shows no next sync; resuming restores the planned one, never the resume time", () =>
      forAll(
        fc.tuple(fc.integer({ min: -60, max: 600 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 6 })),
        ([due, steps]) =>
          Effect.gen(function* () {
            const { store, org, vendors, debtors } = yield* world(["Acme"], ["Globex"])
            const created = Option.getOrThrow(
              yield* store.insertIntegration(row(org, vendors[0]!.id, debtors[0]!.id, due))
            )
            const planned = millis(created.nextSyncAt)
            for (const [index, paused] of steps.entries()) {
              const changed = Option.getOrThrow(yield* store.setPaused(created.id, paused, at(60 + index)))
              const model = { paused, next: paused ? null : planned }
              assert.deepStrictEqual({ paused: changed.paused, next: millis(changed.nextSyncAt) }, model)
              assert.deepStrictEqual(yield* store.findIntegration(created.id), Option.some(changed))
            }
          })
      )
    )

    it.effect(
      "of concurrent manual-sync marks of a pair one wins; a later one wins once `since` has passed the last",
      () =>
        forAll(fc.integer({ min: 2, max: 6 }), (concurrent) =>
          Effect.gen(function* () {
            const { store, org, vendors, debtors } = yield* world(["Acme"], ["Globex"])
            const pair = Option.getOrThrow(yield* store.insertIntegration(row(org, vendors[0]!.id, debtors[0]!.id)))
            const marks = yield* Effect.all(
              Array.from({ length: concurrent }, () => store.markManualSync(pair.id, at(10), at(9))),
              { concurrency: "unbounded" }
            )
            assert.strictEqual(marks.filter(Boolean).length, 1)
            assert.isFalse(yield* store.markManualSync(pair.id, at(10), at(9)))
            assert.isTrue(yield* store.markManualSync(pair.id, at(11), at(10)))
            assert.isFalse(yield* store.markManualSync(randomUUID() as PairId, at(11), at(10)))
          })
        )
    )

    it.effect("an id that names nothing finds nothing, and pausing it changes nothing", () =>
      forAll(fc.uuid(), (id) =>
        Effect.gen(function* () {
          const store = yield* DirectoryStore
          const org = (yield* newOrg).id
          assert.isTrue(Option.isNone(yield* store.findVendor(org, id as VendorId)))
          assert.isTrue(Option.isNone(yield* store.findDebtor(id as DebtorId)))
          assert.isTrue(Option.isNone(yield* store.findIntegration(id as PairId)))
          assert.isTrue(Option.isNone(yield* store.setPaused(id as PairId, true, at(0))))
          assert.deepStrictEqual(yield* store.recentRuns(org, randomUUID() as PairId, 10), [])
        })
      )
    )
  })
