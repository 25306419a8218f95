/**
 * The API's resources as schemas: Vendor, Debtor, Receivable, HistoryEntry and the list
 * envelopes (spec section 2). Fields are camelCase in TypeScript and encode to the spec's
 * snake_case names, so one schema serves the domain and the wire.
 */
import { Schema } from "effect"
import { DebtorId, ReceivableId, VendorId } from "./Ids.ts"
import { Status } from "./Status.ts"
import { AmountCents, CurrencyCode, IsoDate, Metadata, Timestamp } from "./Values.ts"

const partyFields = {
  name: Schema.String,
  createdAt: Timestamp,
  estimatedNextUpdateAt: Schema.NullOr(Timestamp)
}
const partyKeys = { createdAt: "created_at", estimatedNextUpdateAt: "estimated_next_update_at" } as const

export const Vendor = Schema.Struct({ id: VendorId, object: Schema.Literal("vendor"), ...partyFields })
  .pipe(Schema.encodeKeys(partyKeys))
  .annotate({ identifier: "Vendor" })
export type Vendor = typeof Vendor.Type

export const Debtor = Schema.Struct({ id: DebtorId, object: Schema.Literal("debtor"), ...partyFields })
  .pipe(Schema.encodeKeys(partyKeys))
  .annotate({ identifier: "Debtor" })
export type Debtor = typeof Debtor.Type

/** A value a history entry records: a string, an amount, or null for an absent value. */
export const FieldValue = Schema.Union([Schema.String, Schema.Number, Schema.Null])
export type FieldValue = typeof FieldValue.Type

export const FieldChange = Schema.Struct({ from: FieldValue, to: FieldValue })
export type FieldChange = typeof FieldChange.Type

/** Changed field (API name, or `metadata.<key>`) to its old and new value. */
export const Changes = Schema.Record(Schema.String, FieldChange)
export type Changes = typeof Changes.Type

export const HistoryEntry = Schema.Struct({ changedAt: Timestamp, changes: Changes })
  .pipe(Schema.encodeKeys({ changedAt: "changed_at" }))
  .annotate({ identifier: "HistoryEntry" })
export type HistoryEntry = typeof HistoryEntry.Type

export const VendorRef = Schema.Struct({ id: VendorId, name: Schema.String })
export const DebtorRef = Schema.Struct({ id: DebtorId, name: Schema.String })

/**
 * TypeScript name to API name of every field a sync may change. The history's `changes` keys use
 * the API names; metadata keys appear as `metadata.<key>`.
 */
export const trackedFieldNames = {
  vendorReceivableId: "vendor_receivable_id",
  amountCents: "amount_cents",
  currency: "currency",
  receivableDate: "receivable_date",
  dueDate: "due_date",
  status: "status",
  portalStatus: "portal_status",
  poNumber: "po_number"
} as const

/** What a portal says about a receivable: the fields a sync compares, and history records. */
export const ReceivableState = Schema.Struct({
  vendorReceivableId: Schema.NullOr(Schema.String),
  amountCents: AmountCents,
  currency: CurrencyCode,
  receivableDate: IsoDate,
  dueDate: Schema.NullOr(IsoDate),
  status: Status,
  portalStatus: Schema.String,
  poNumber: Schema.NullOr(Schema.String),
  metadata: Metadata
})
export type ReceivableState = typeof ReceivableState.Type

export const Receivable = Schema.Struct({
  id: ReceivableId,
  object: Schema.Literal("receivable"),
  vendorReceivableId: ReceivableState.fields.vendorReceivableId,
  vendor: VendorRef,
  debtor: DebtorRef,
  amountCents: ReceivableState.fields.amountCents,
  currency: ReceivableState.fields.currency,
  receivableDate: ReceivableState.fields.receivableDate,
  dueDate: ReceivableState.fields.dueDate,
  status: ReceivableState.fields.status,
  portalStatus: ReceivableState.fields.portalStatus,
  poNumber: ReceivableState.fields.poNumber,
  detectedAt: Timestamp,
  updatedAt: Timestamp,
  estimatedNextUpdateAt: Schema.NullOr(Timestamp),
  // Always present on the single receivable; on list items only when expanded.
  history: Schema.optionalKey(Schema.Array(HistoryEntry)),
  metadata: Schema.optionalKey(Metadata)
})
  .pipe(
    Schema.encodeKeys({
      ...trackedFieldNames,
      detectedAt: "detected_at",
      updatedAt: "updated_at",
      estimatedNextUpdateAt: "estimated_next_update_at"
    })
  )
  .annotate({ identifier: "Receivable" })
export type Receivable = typeof Receivable.Type

/** The list envelope of the vendors and debtors lists. */
export const ListOf = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(item), totalCount: Schema.Int }).pipe(
    Schema.encodeKeys({ totalCount: "total_count" })
  )

/** The list envelope of the receivables list, which pages and so says whether more follow. */
export const PageOf = <S extends Schema.Top>(item: S) =>
  Schema.Struct({
    object: Schema.Literal("list"),
    data: Schema.Array(item),
    hasMore: Schema.Boolean,
    totalCount: Schema.Int
  }).pipe(Schema.encodeKeys({ hasMore: "has_more", totalCount: "total_count" }))
