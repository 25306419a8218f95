/**
 * The contract of the `ReceivableStore` port (the API's read path), one suite run against every
 * implementation: a store's test file is one line, `describeReceivableStore(name, layer)`, as with
 * the connector conformance kit. Each property seeds a fresh world (`ReceivableStore.model.ts`)
 * through `ReceivableSeed` and holds the store's answers to the model's; keyset paging and the
 * watermark are in `ReceivableStore.keyset.ts`, the integrations in `ReceivableStore.integrations.ts`.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer, Option, Schema } from "effect"
import fc from "fast-check"
import { Debtor, Receivable, Vendor } from "../../core/receivables/domain/Resources.ts"
import { ReceivableStore } from "../../core/receivables/ports/ReceivableStore.ts"
import type { OrgId, ReceivableId } from "../../core/shared/domain/Ids.ts"
import { integrationsLaw } from "./ReceivableStore.integrations.ts"
import { keysetSliceLaw, keysetWalkLaw, unknownCursorLaw, watermarkLaw } from "./ReceivableStore.keyset.ts"
import {
  filterOf,
  filterPlan,
  modelBills,
  modelList,
  modelNextUpdate,
  modelReceivable
} from "./ReceivableStore.model.ts"
import { forAll, list, type Services } from "./ReceivableStore.seed.ts"

const encodeReceivable = Schema.encodeSync(Receivable)
const encodeVendors = Schema.encodeSync(Schema.Array(Vendor))
const encodeDebtors = Schema.encodeSync(Schema.Array(Debtor))
const everything = { offset: 0, limit: 1_000 }
const ids = (items: ReadonlyArray<{ readonly id: string }>) => items.map((item) => item.id)

export const describeReceivableStore = <E>(name: string, storeLayer: Layer.Layer<Services, E>) =>
  layer(storeLayer, { excludeTestServices: true, timeout: 180_000 })(`ReceivableStore contract (${name})`, (it) => {
    it.effect(
      "a list holds exactly the organization's receivables that every filter keeps, by detected_at then id, counting all",
      () =>
        forAll(filterPlan, (world, plan) =>
          Effect.gen(function* () {
            const { org, filter, asked } = filterOf(world, plan)
            const page = yield* list(asked.org, {
              filter: asked.filter,
              window: everything,
              history: Option.none(),
              metadata: false
            })
            const expected = modelList(world, org, filter)
            assert.deepStrictEqual(ids(page.items), ids(expected))
            assert.strictEqual(page.totalCount, expected.length)
          })
        )
    )

    it.effect("pages partition the filtered result in order, each counting all of it; past the end is empty", () =>
      forAll(
        fc.record({ limit: fc.integer({ min: 1, max: 5 }), status: fc.constantFrom(undefined, "PAID" as const) }),
        (world, { limit, status }) =>
          Effect.gen(function* () {
            const expected = ids(modelList(world, world.orgs[0], { status }))
            const pages = Math.ceil(expected.length / limit) + 1
            const seen: Array<string> = []
            for (let page = 0; page < pages; page++) {
              const answer = yield* list(world.orgs[0], {
                filter: { status },
                window: { offset: page * limit, limit },
                history: Option.none(),
                metadata: false
              })
              assert.strictEqual(answer.totalCount, expected.length)
              assert.isAtMost(answer.items.length, limit)
              if (page === pages - 1) assert.lengthOf(answer.items, 0)
              seen.push(...ids(answer.items))
            }
            assert.deepStrictEqual(seen, expected)
          })
      )
    )

    it.effect("a list item carries history (newest first, up to the limit) and metadata only when asked", () =>
      forAll(
        fc.record({ history: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }), metadata: fc.boolean() }),
        (world, expand) =>
          Effect.gen(function* () {
            const org = world.orgs[0]
            const page = yield* list(org, {
              filter: {},
              window: everything,
              history: Option.fromUndefinedOr(expand.history),
              metadata: expand.metadata
            })
            assert.deepStrictEqual(
              page.items.map((item) => encodeReceivable(item)),
              modelList(world, org, {}).map((r) => modelReceivable(world, r, expand))
            )
          })
      )
    )

    it.effect(
      "a receivable reads back as seeded, with its pair's names and next update, metadata and newest history",
      () =>
        forAll(fc.integer({ min: 0, max: 4 }), (world, limit) =>
          Effect.gen(function* () {
            const store = yield* ReceivableStore
            for (const r of world.receivables) {
              const found = yield* store.getReceivable(r.orgId, r.id, limit)
              assert.deepStrictEqual(
                Option.map(found, (item) => encodeReceivable(item)),
                Option.some(modelReceivable(world, r, { history: limit, metadata: true }))
              )
            }
          })
        )
    )

    it.effect("an organization never reads another's receivables, vendors or debtors", () =>
      forAll(fc.constant(null), (world) =>
        Effect.gen(function* () {
          const store = yield* ReceivableStore
          const [own, other] = world.orgs
          for (const r of world.receivables.filter((r) => r.orgId === other)) {
            assert.isTrue(Option.isNone(yield* store.getReceivable(own, r.id, 10)))
          }
          const unknown = "rcv_00000000000000000000000000000000" as ReceivableId
          assert.isTrue(Option.isNone(yield* store.getReceivable(own, unknown, 10)))
          const listed = yield* list(own, {
            filter: {},
            window: everything,
            history: Option.none(),
            metadata: false
          })
          assert.sameMembers(ids(listed.items), ids(world.receivables.filter((r) => r.orgId === own)))
          const vendors = yield* store.listVendors(own, {})
          assert.sameMembers(ids(vendors), ids(world.vendors.filter((v) => v.orgId === own)))
          const debtors = yield* store.listDebtors(own, {})
          for (const debtor of debtors) assert.isTrue(modelBills(world, own, undefined, debtor.id))
        })
      )
    )

    it.effect(
      "vendors: the organization's, by name then id, with their pairs' earliest next sync; with a debtor, those billing it",
      () =>
        forAll(fc.option(fc.nat(), { nil: undefined }), (world, pick) =>
          Effect.gen(function* () {
            const org: OrgId = world.orgs[0]
            const debtorId = pick === undefined ? undefined : world.debtors[pick % world.debtors.length]!.id
            const expected = world.vendors
              .filter((v) => v.orgId === org && (debtorId === undefined || modelBills(world, org, v.id, debtorId)))
              .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1))
              .map((v) => ({
                ...v,
                object: "vendor" as const,
                estimatedNextUpdateAt: modelNextUpdate(world, org, (p) => p.vendorId === v.id)
              }))
              .map(({ orgId: _org, ...v }) => v)
            assert.deepStrictEqual(
              encodeVendors(yield* (yield* ReceivableStore).listVendors(org, { debtorId })),
              encodeVendors(expected)
            )
          })
        )
    )

    it.effect(
      "keyset: after any receivable of the organization, matching or not, a page (and a page's later chunk) is the model's list after that place",
      () => keysetSliceLaw
    )
    it.effect("keyset: following each page's last item visits every match once, in order", () => keysetWalkLaw)
    it.effect("keyset: an unknown id, or another organization's, is StartingAfterNotFound", () => unknownCursorLaw)
    it.effect(
      "next_verified_since: the read's time, or the earliest in-flight mark of the organization's pairs not older than 10 minutes",
      () => watermarkLaw
    )
    it.effect(
      "integrations: the organization's pairs of the vendor and debtor asked, with their kind, state, newest run and next update, by vendor name, debtor name, then id",
      () => integrationsLaw
    )

    it.effect("debtors: those the organization has receivables with (of the vendor, if given), by name then id", () =>
      forAll(fc.option(fc.nat(), { nil: undefined }), (world, pick) =>
        Effect.gen(function* () {
          const org: OrgId = world.orgs[0]
          const vendorId = pick === undefined ? undefined : world.vendors[pick % world.vendors.length]!.id
          const expected = world.debtors
            .filter((d) => modelBills(world, org, vendorId, d.id))
            .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1))
            .map((d) => ({
              ...d,
              object: "debtor" as const,
              estimatedNextUpdateAt: modelNextUpdate(world, org, (p) => p.debtorId === d.id)
            }))
          assert.deepStrictEqual(
            encodeDebtors(yield* (yield* ReceivableStore).listDebtors(org, { vendorId })),
            encodeDebtors(expected)
          )
        })
      )
    )
  })
