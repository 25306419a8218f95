import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import { Debtor, PageOf, Receivable, Vendor } from "../../../core/receivables/domain/Resources.ts"
import { ReceivableId } from "../../../core/shared/domain/Ids.ts"

const vendorId = "7f0b1c3e-2d4a-4e6f-8a9b-0c1d2e3f4a5b"
const debtorId = "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d"

const receivable = Schema.decodeUnknownSync(Receivable)({
  id: "rcv_0123456789abcdef0123456789abcdef",
  object: "receivable",
  vendor_receivable_id: "INV-2026-001",
  vendor: { id: vendorId, name: "Acme Supplies" },
  debtor: { id: debtorId, name: "Globex" },
  amount_cents: 123456,
  currency: "EUR",
  receivable_date: "2026-11-01",
  due_date: "2026-12-01",
  status: "APPROVED",
  portal_status: "Approved for payment",
  po_number: "PO-77",
  detected_at: "2026-11-02T10:00:00Z",
  updated_at: "2026-11-20T10:00:00.250+01:00",
  estimated_next_update_at: null
})

describe("resources", () => {
  it("a receivable encodes with the spec's field names and millisecond UTC timestamps (golden)", () => {
    assert.deepStrictEqual(Schema.encodeSync(Receivable)(receivable), {
      id: "rcv_0123456789abcdef0123456789abcdef",
      object: "receivable",
      vendor_receivable_id: "INV-2026-001",
      vendor: { id: vendorId, name: "Acme Supplies" },
      debtor: { id: debtorId, name: "Globex" },
      amount_cents: 123456,
      currency: "EUR",
      receivable_date: "2026-11-01",
      due_date: "2026-12-01",
      status: "APPROVED",
      portal_status: "Approved for payment",
      po_number: "PO-77",
      detected_at: "2026-11-02T10:00:00.000Z",
      updated_at: "2026-11-20T09:00:00.250Z",
      estimated_next_update_at: null
    })
  })

  it("history and metadata appear only when present", () => {
    const expanded = { ...receivable, history: [], metadata: { payment_terms: "NET30" } }
    const encoded = Schema.encodeSync(Receivable)(expanded)
    assert.deepStrictEqual(encoded.history, [])
    assert.deepStrictEqual(encoded.metadata, { payment_terms: "NET30" })
    assert.notProperty(Schema.encodeSync(Receivable)(receivable), "history")
  })

  it("refuses malformed fields", () => {
    const bad = (patch: Record<string, unknown>) =>
      Schema.decodeUnknownExit(Receivable)({ ...Schema.encodeSync(Receivable)(receivable), ...patch })
    for (const patch of [
      { id: "rcv_0123" },
      { id: "rcv_0123456789ABCDEF0123456789ABCDEF" },
      { amount_cents: 1.5 },
      { amount_cents: 2 ** 60 },
      { currency: "eur" },
      { receivable_date: "2026-02-30" },
      { due_date: "01/12/2026" },
      { status: "Paid" },
      { vendor: { id: "not-a-uuid", name: "x" } }
    ]) {
      assert.isTrue(bad(patch)._tag === "Failure", JSON.stringify(patch))
    }
  })

  it("vendors, debtors and the list envelope encode to the spec's shape", () => {
    const createdAt = DateTime.makeUnsafe("2026-01-01T00:00:00Z")
    const vendor = Schema.decodeSync(Vendor)({
      id: vendorId,
      object: "vendor",
      name: "Acme",
      created_at: "2026-01-01T00:00:00Z",
      estimated_next_update_at: null
    })
    const debtor = {
      id: debtorId,
      object: "debtor",
      name: "Globex",
      createdAt,
      estimatedNextUpdateAt: createdAt
    } as const
    assert.deepStrictEqual(
      Schema.encodeSync(Debtor)(Schema.decodeSync(Debtor)(Schema.encodeSync(Debtor)(debtor as never))),
      {
        id: debtorId,
        object: "debtor",
        name: "Globex",
        created_at: "2026-01-01T00:00:00.000Z",
        estimated_next_update_at: "2026-01-01T00:00:00.000Z"
      }
    )
    assert.deepStrictEqual(
      Schema.encodeSync(PageOf(Vendor))({ object: "list", data: [vendor], hasMore: false, totalCount: 1 }),
      {
        object: "list",
        data: [
          {
            id: vendorId,
            object: "vendor",
            name: "Acme",
            created_at: "2026-01-01T00:00:00.000Z",
            estimated_next_update_at: null
          }
        ],
        has_more: false,
        total_count: 1
      }
    )
  })

  it("receivable ids are rcv_ and 32 lower-case hex characters", () => {
    assert.isTrue(Schema.is(ReceivableId)("rcv_0123456789abcdef0123456789abcdef"))
    assert.isFalse(Schema.is(ReceivableId)("rcv_0123456789abcdef0123456789abcde"))
    assert.isFalse(Schema.is(ReceivableId)("inv_0123456789abcdef0123456789abcdef"))
  })
})
