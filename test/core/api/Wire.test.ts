import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import fc from "fast-check"
import * as Wire from "../../../core/api/Wire.ts"
import type { DebtorId, ReceivableId, VendorId } from "../../../core/domain/Ids.ts"
import { Debtor, type HistoryEntry, ListOf, PageOf, Receivable, Vendor } from "../../../core/domain/Resources.ts"
import { arbitraryState } from "../../support/arbitraries.ts"

const instant = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
  .map((date) => DateTime.fromDateUnsafe(date))
const uuid = fc.uuid({ version: 4 })

const history: fc.Arbitrary<HistoryEntry> = fc.record({
  changedAt: instant,
  changes: fc.dictionary(
    fc.constantFrom("status", "portal_status", "amount_cents", "metadata.payment_terms"),
    fc.record({
      from: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      to: fc.oneof(fc.string(), fc.integer(), fc.constant(null))
    })
  )
})

const receivable: fc.Arbitrary<Receivable> = fc
  .record({
    state: arbitraryState,
    id: fc
      .uint8Array({ minLength: 16, maxLength: 16 })
      .map((bytes) => `rcv_${Buffer.from(bytes).toString("hex")}` as ReceivableId),
    vendor: fc.record({ id: uuid.map((id) => id as VendorId), name: fc.string() }),
    debtor: fc.record({ id: uuid.map((id) => id as DebtorId), name: fc.string() }),
    detectedAt: instant,
    updatedAt: instant,
    estimatedNextUpdateAt: fc.option(instant, { nil: null }),
    history: fc.option(fc.array(history, { maxLength: 3 }), { nil: undefined })
  })
  .map(({ state, history, ...rest }) => {
    const { metadata, ...fields } = state
    return {
      ...rest,
      ...fields,
      object: "receivable" as const,
      ...(history === undefined ? {} : { history }),
      // Metadata present or absent independently of history.
      ...(DateTime.toEpochMillis(rest.detectedAt) % 2 === 0 ? { metadata } : {})
    }
  })

const party = <O extends "vendor" | "debtor">(object: O) =>
  fc.record({
    id: uuid,
    object: fc.constant(object),
    name: fc.string(),
    createdAt: instant,
    estimatedNextUpdateAt: fc.option(instant, { nil: null })
  })

describe("Wire", () => {
  it("writes a receivable exactly as the contract's schema encodes it", () =>
    fc.assert(
      fc.property(receivable, (r) => {
        assert.deepStrictEqual(Wire.receivable(r), Schema.encodeSync(Receivable)(r))
      }),
      { numRuns: 2_000 }
    ))

  it("writes pages and lists as the contract's envelopes", () =>
    fc.assert(
      fc.property(fc.array(receivable, { maxLength: 5 }), fc.boolean(), fc.nat(), (items, hasMore, total) => {
        assert.deepStrictEqual(
          Wire.page(items, Wire.receivable, hasMore, total),
          Schema.encodeSync(PageOf(Receivable))({ object: "list", data: items, hasMore, totalCount: total })
        )
      })
    ))

  it("writes vendors and debtors as the contract's schemas encode them", () =>
    fc.assert(
      fc.property(fc.array(party("vendor")), fc.array(party("debtor")), (vendors, debtors) => {
        const v = vendors as unknown as ReadonlyArray<Vendor>
        const d = debtors as unknown as ReadonlyArray<Debtor>
        assert.deepStrictEqual<unknown>(
          Wire.list(v, Wire.party),
          Schema.encodeSync(ListOf(Vendor))({ object: "list", data: v, totalCount: v.length })
        )
        assert.deepStrictEqual<unknown>(
          Wire.list(d, Wire.party),
          Schema.encodeSync(ListOf(Debtor))({ object: "list", data: d, totalCount: d.length })
        )
      })
    ))
})
