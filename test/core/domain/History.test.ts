import { assert, describe, it } from "@effect/vitest"
import { DateTime, Option, Schema } from "effect"
import fc from "fast-check"
import { applyChanges, diffReceivable, historyEntry, revertChanges } from "../../../core/receivables/domain/History.ts"
import { HistoryEntry, type ReceivableState } from "../../../core/receivables/domain/Resources.ts"
import { arbitraryState } from "../../support/arbitraries.ts"

const pairOfStates = fc.tuple(arbitraryState, arbitraryState)
// Two states that differ only where the generator chose to change them, which is the usual case
// of a resync; fully independent states alone would rarely produce equal fields.
const nearbyStates = fc
  .tuple(arbitraryState, arbitraryState, fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }))
  .map(([previous, other, take]) => {
    const keys = Object.keys(previous) as Array<keyof ReceivableState>
    const next = Object.fromEntries(keys.map((key, i) => [key, take[i] ? other[key] : previous[key]]))
    return [previous, next as unknown as ReceivableState] as const
  })
const anyPair = fc.oneof(pairOfStates, nearbyStates)

describe("diffReceivable", () => {
  it("gives no entry for equal records", () =>
    fc.assert(
      fc.property(arbitraryState, (state) => {
        assert.deepStrictEqual(diffReceivable(state, { ...state, metadata: { ...state.metadata } }), {})
        assert.isTrue(Option.isNone(historyEntry(state, state, DateTime.makeUnsafe(0))))
      })
    ))

  it("applying the diff to the previous record gives the next", () =>
    fc.assert(
      fc.property(anyPair, ([previous, next]) => {
        assert.deepStrictEqual(applyChanges(previous, diffReceivable(previous, next)), next)
      }),
      { numRuns: 2_000 }
    ))

  it("reverting the diff from the next record gives the previous", () =>
    fc.assert(
      fc.property(anyPair, ([previous, next]) => {
        assert.deepStrictEqual(revertChanges(next, diffReceivable(previous, next)), previous)
      }),
      { numRuns: 2_000 }
    ))

  it("a status change carries its portal_status change", () =>
    fc.assert(
      fc.property(anyPair, ([previous, next]) => {
        const changes = diffReceivable(previous, next)
        if (previous.status !== next.status) {
          assert.deepStrictEqual(changes.status, { from: previous.status, to: next.status })
          assert.deepStrictEqual(changes.portal_status, { from: previous.portalStatus, to: next.portalStatus })
        }
      })
    ))

  it("names fields by their API names and metadata keys as metadata.<key>", () => {
    const previous: ReceivableState = {
      vendorReceivableId: "INV-1",
      amountCents: 100_00,
      currency: "EUR" as ReceivableState["currency"],
      receivableDate: "2026-01-01" as ReceivableState["receivableDate"],
      dueDate: null,
      status: "PENDING",
      portalStatus: "Submitted",
      poNumber: null,
      metadata: { payment_terms: "NET30", supplier_code: "S-1" }
    }
    const next: ReceivableState = {
      ...previous,
      amountCents: 120_00,
      dueDate: "2026-02-01" as ReceivableState["receivableDate"],
      status: "APPROVED",
      portalStatus: "Approved",
      metadata: { payment_terms: "NET60", buyer_contact: "ap@example.com" }
    }
    assert.deepStrictEqual(diffReceivable(previous, next), {
      amount_cents: { from: 10000, to: 12000 },
      due_date: { from: null, to: "2026-02-01" },
      status: { from: "PENDING", to: "APPROVED" },
      portal_status: { from: "Submitted", to: "Approved" },
      "metadata.buyer_contact": { from: null, to: "ap@example.com" },
      "metadata.payment_terms": { from: "NET30", to: "NET60" },
      "metadata.supplier_code": { from: "S-1", to: null }
    })
  })

  it("records a status moved by a new mapping with the unchanged portal text", () => {
    const previous = fc.sample(arbitraryState, { seed: 7, numRuns: 1 })[0]!
    const next: ReceivableState = { ...previous, status: previous.status === "PAID" ? "APPROVED" : "PAID" }
    assert.deepStrictEqual(diffReceivable(previous, next).portal_status, {
      from: previous.portalStatus,
      to: previous.portalStatus
    })
  })

  it("history entries encode to the persisted shape (golden)", () => {
    const entry = historyEntry(
      { ...fc.sample(arbitraryState, { seed: 1, numRuns: 1 })[0]!, status: "PENDING", portalStatus: "SUBMITTED" },
      { ...fc.sample(arbitraryState, { seed: 1, numRuns: 1 })[0]!, status: "PAID", portalStatus: "Paid in full" },
      DateTime.makeUnsafe("2026-11-21T03:46:13Z")
    ).pipe(Option.getOrThrow)
    assert.deepStrictEqual(Schema.encodeSync(HistoryEntry)(entry), {
      changed_at: "2026-11-21T03:46:13.000Z",
      changes: {
        status: { from: "PENDING", to: "PAID" },
        portal_status: { from: "SUBMITTED", to: "Paid in full" }
      }
    })
  })

  it("handles arbitrary independent records", () =>
    fc.assert(
      fc.property(pairOfStates, ([previous, next]) => {
        const changes = diffReceivable(previous, next)
        for (const name of Object.keys(changes)) {
          assert.match(
            name,
            /^(vendor_receivable_id|amount_cents|currency|receivable_date|due_date|status|portal_status|po_number|metadata\..*)$/
          )
        }
      })
    ))
})
