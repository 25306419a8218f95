import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import * as Wire from "../../../core/api/Wire.ts"
import { Debtor, ListOf, PageOf, Receivable, Vendor } from "../../../core/receivables/domain/Resources.ts"
import { arbitraryInstant as instant, arbitraryReceivable as receivable } from "../../support/arbitraries.ts"

const uuid = fc.uuid({ version: 4 })

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
