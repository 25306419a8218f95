/** fast-check generators of domain values, shared by the property tests. */
import fc from "fast-check"
import type { ReceivableState } from "../../core/domain/Resources.ts"
import { statuses } from "../../core/domain/Status.ts"

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

/** An organization's own rate limit, as an operator may set it. */
export const arbitraryRateLimit = fc.record({
  perSecond: fc.double({ min: 0.01, max: 1e6, noNaN: true }),
  burst: fc.integer({ min: 1, max: 1e6 })
})
