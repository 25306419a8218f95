/**
 * The contract of the `ReceivableSearch` port (the dashboard's search and totals), one suite run
 * against every implementation: `describeReceivableSearch(name, layer)`. Each property seeds a
 * fresh world of the `ReceivableStore` contract (`ReceivableStore.model.ts`) through
 * `ReceivableSeed` and holds the search's answers to the plain reading of the port: the start of
 * an invoice number, a PO number or an id, in any letter case, with the list's filters, in the
 * order asked, a window of it, counting all; totals per status and currency, one organization's.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, type Layer, Schema } from "effect"
import fc from "fast-check"
import { Receivable } from "../../core/receivables/domain/Resources.ts"
import { statuses } from "../../core/receivables/domain/Status.ts"
import { ReceivableSearch, type SearchOrder, sortKeys } from "../../core/receivables/ports/ReceivableSearch.ts"
import { filterOf, filterPlan, modelList, modelReceivable, type World } from "./ReceivableStore.model.ts"
import { forAll, type ReceivableSeed } from "./ReceivableStore.seed.ts"

const encodeReceivable = Schema.encodeSync(Receivable)
const millis = DateTime.toEpochMillis
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * What is typed in the search box: none, the start of some receivable's invoice number, PO number
 * or id (of either organization, in either letter case), or a few characters of any kind (`%`,
 * `_` and `\` among them, which match only themselves).
 */
const textPlan = fc.oneof(
  fc.constant(undefined),
  fc.record({
    of: fc.constantFrom("invoice" as const, "po" as const, "id" as const),
    pick: fc.nat(),
    length: fc.integer({ min: 1, max: 12 }),
    upper: fc.boolean()
  }),
  fc.string({ minLength: 1, maxLength: 3 })
)
type TextPlan = typeof textPlan extends fc.Arbitrary<infer A> ? A : never

const textOf = (world: World, plan: TextPlan): string | undefined => {
  if (plan === undefined || typeof plan === "string" || world.receivables.length === 0) {
    return typeof plan === "string" ? plan : undefined
  }
  const r = world.receivables[plan.pick % world.receivables.length]!
  const value = (plan.of === "invoice" ? r.vendorReceivableId : plan.of === "po" ? r.poNumber : r.id) ?? r.id
  const start = value.slice(0, plan.length)
  return plan.upper ? start.toUpperCase() : start
}

// Mostly the whole organization and the first page, so that most cases order and match many rows.
const searchPlan = fc.record({
  filter: fc.oneof(
    { weight: 1, arbitrary: filterPlan },
    {
      weight: 2,
      arbitrary: filterPlan.map((plan) => ({
        ...plan,
        vendor: undefined,
        debtor: undefined,
        status: undefined,
        updatedSince: undefined
      }))
    }
  ),
  text: textPlan,
  order: fc.record({ key: fc.constantFrom(...sortKeys), descending: fc.boolean() }),
  window: fc.record({
    offset: fc.oneof(fc.constant(0), fc.nat({ max: 6 })),
    limit: fc.oneof(fc.constant(16), fc.integer({ min: 1, max: 8 }))
  }),
  metadata: fc.boolean()
})

type SearchPlan = typeof searchPlan extends fc.Arbitrary<infer A> ? A : never
type Row = World["receivables"][number]

// The chosen column, then the newest detected (then the greatest id); the due date, which alone
// may be empty, is last whichever the direction; "detected" is detected time, then id, both ways;
// "amount" is currency, then amount, then id, all three ways the direction says.
const modelOrder = (order: SearchOrder) => (a: Row, b: Row) => {
  const direction = order.descending ? -1 : 1
  const newestDetected = millis(b.detectedAt) - millis(a.detectedAt) || byText(b.id, a.id)
  switch (order.key) {
    case "detected":
      return direction * (millis(a.detectedAt) - millis(b.detectedAt) || byText(a.id, b.id))
    case "updated":
      return direction * (millis(a.updatedAt) - millis(b.updatedAt)) || newestDetected
    case "amount":
      return direction * (byText(a.currency, b.currency) || a.amountCents - b.amountCents || byText(a.id, b.id))
    case "due":
      if (a.dueDate === b.dueDate) return newestDetected
      if (a.dueDate === null) return 1
      if (b.dueDate === null) return -1
      return direction * byText(a.dueDate, b.dueDate)
  }
}

const startsWith = (value: string | null, text: string) => value?.toLowerCase().startsWith(text.toLowerCase()) === true

export const describeReceivableSearch = <E>(name: string, storage: Layer.Layer<ReceivableSearch | ReceivableSeed, E>) =>
  layer(storage, { excludeTestServices: true, timeout: 180_000 })(`ReceivableSearch contract (${name})`, (it) => {
    it.effect(
      "a search holds the organization's receivables that the text and every filter keep, in the order asked, a window of them, counting all",
      () =>
        forAll<SearchPlan, ReceivableSearch>(
          searchPlan,
          (world, plan) =>
            Effect.gen(function* () {
              const { org, filter, asked } = filterOf(world, plan.filter)
              const text = textOf(world, plan.text)
              const page = yield* (yield* ReceivableSearch).search(asked.org, {
                text,
                filter: asked.filter,
                order: plan.order,
                window: plan.window,
                metadata: plan.metadata
              })
              const found = modelList(world, org, filter)
                .filter(
                  (r) =>
                    text === undefined ||
                    startsWith(r.vendorReceivableId, text) ||
                    startsWith(r.poNumber, text) ||
                    startsWith(r.id, text)
                )
                .sort(modelOrder(plan.order))
              const { offset, limit } = plan.window
              assert.strictEqual(page.totalCount, found.length)
              assert.deepStrictEqual(
                page.items.map((item) => item.id),
                found.slice(offset, offset + limit).map((r) => r.id)
              )
              assert.deepStrictEqual(
                page.items.map((item) => encodeReceivable(item)),
                found.slice(offset, offset + limit).map((r) => modelReceivable(world, r, { metadata: plan.metadata }))
              )
            }),
          200
        )
    )

    it.effect("totals: the organization's count and amount per status, in the statuses' order, then per currency", () =>
      forAll<boolean, ReceivableSearch>(fc.boolean(), (world, second) =>
        Effect.gen(function* () {
          const org = world.orgs[second ? 1 : 0]
          const groups = new Map<
            string,
            { status: Row["status"]; currency: string; count: number; amountCents: number }
          >()
          for (const r of world.receivables.filter((r) => r.orgId === org)) {
            const key = `${r.status} ${r.currency}`
            const group = groups.get(key) ?? { status: r.status, currency: r.currency, count: 0, amountCents: 0 }
            groups.set(key, { ...group, count: group.count + 1, amountCents: group.amountCents + r.amountCents })
          }
          const expected = [...groups.values()].sort(
            (a, b) => statuses.indexOf(a.status) - statuses.indexOf(b.status) || byText(a.currency, b.currency)
          )
          assert.deepStrictEqual(
            (yield* (yield* ReceivableSearch).totals(org)).map((total) => ({ ...total })),
            expected
          )
        })
      )
    )
  })
