/** fast-check generators of domain values, shared by the property tests. */
import { DateTime } from "effect"
import fc from "fast-check"
import type { HistoryEntry, Receivable, ReceivableState } from "../../core/receivables/domain/Resources.ts"
import { statuses } from "../../core/receivables/domain/Status.ts"
import type { DebtorId, ReceivableId, VendorId } from "../../core/shared/domain/Ids.ts"

export const arbitraryIsoDate = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10) as ReceivableState["receivableDate"])

export const arbitraryCurrency = fc.constantFrom("EUR", "USD", "GBP", "SEK", "JPY") as fc.Arbitrary<
  ReceivableState["currency"]
>

export const arbitraryMetadata = fc.dictionary(
  fc.constantFrom("payment_terms", "supplier_code", "buyer_contact", "file_reference", "custom.field", "x"),
  fc.string({ maxLength: 12 }),
  { maxKeys: 5 }
)

export const arbitraryState: fc.Arbitrary<ReceivableState> = fc.record({
  vendorReceivableId: fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: null }),
  amountCents: fc.integer({ min: -1_000_000_00, max: 1_000_000_000_00 }),
  currency: arbitraryCurrency,
  receivableDate: arbitraryIsoDate,
  dueDate: fc.option(arbitraryIsoDate, { nil: null }),
  status: fc.constantFrom(...statuses),
  portalStatus: fc.constantFrom("Submitted", "APPROVED", "paid", "On Hold", "Factored", "Weird State"),
  poNumber: fc.option(fc.string({ minLength: 1, maxLength: 10 }), { nil: null }),
  metadata: arbitraryMetadata
})

/** An instant from 2000 to 2099, with milliseconds. */
export const arbitraryInstant = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
  .map((date) => DateTime.fromDateUnsafe(date))
const uuid = fc.uuid({ version: 4 })

const history: fc.Arbitrary<HistoryEntry> = fc.record({
  changedAt: arbitraryInstant,
  changes: fc.dictionary(
    fc.constantFrom("status", "portal_status", "amount_cents", "metadata.payment_terms"),
    fc.record({
      from: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      to: fc.oneof(fc.string(), fc.integer(), fc.constant(null))
    })
  )
})

/** A receivable as the store returns it, with or without its history and metadata. */
export const arbitraryReceivable: fc.Arbitrary<Receivable> = fc
  .record({
    state: arbitraryState,
    id: fc
      .uint8Array({ minLength: 16, maxLength: 16 })
      .map((bytes) => `rcv_${Buffer.from(bytes).toString("hex")}` as ReceivableId),
    vendor: fc.record({ id: uuid.map((id) => id as VendorId), name: fc.string() }),
    debtor: fc.record({ id: uuid.map((id) => id as DebtorId), name: fc.string() }),
    detectedAt: arbitraryInstant,
    updatedAt: arbitraryInstant,
    estimatedNextUpdateAt: fc.option(arbitraryInstant, { nil: null }),
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

/** An organization's own rate limit, as an operator may set it. */
export const arbitraryRateLimit = fc.record({
  perSecond: fc.double({ min: 0.01, max: 1e6, noNaN: true }),
  burst: fc.integer({ min: 1, max: 1e6 })
})
