/**
 * The API's resources as schemas: Vendor, Debtor, Receivable, HistoryEntry, the list envelopes
 * (spec section 2) and Integration (`GET /v1/integrations`, beyond the spec). Fields are camelCase
 * in TypeScript and encode to the spec's snake_case names, so one schema serves the domain and
 * the wire.
 */
import { DateTime, Schema, SchemaTransformation } from "effect"
import { DebtorId, PairId, ReceivableId, VendorId } from "../../shared/domain/Ids.ts"
import { isoInstant } from "../../shared/domain/IsoText.ts"
import { AmountCents, CurrencyCode, IsoDate, Metadata, Timestamp } from "../../shared/domain/Values.ts"
import { RunErrorClass } from "./RunError.ts"
import { Status } from "./Status.ts"

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

/**
 * A value a history entry records: a string, an amount, or null for an absent value. Finite: JSON
 * has no other numbers, and `Schema.Number` would tell clients to expect "NaN" or "Infinity".
 */
export const FieldValue = Schema.Union([Schema.String, Schema.Finite, Schema.Null])
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

/**
 * A receivable's own fields in wire form, from `id` to `updated_at`: what the API's object and an
 * event's receivable share. Written by hand for the hot list path (see `core/api/Wire.ts`).
 */
export const receivableWireFields = (
  r: Pick<Receivable, "id" | "vendor" | "debtor" | "detectedAt" | "updatedAt"> & Omit<ReceivableState, "metadata">
) => ({
  id: r.id,
  object: "receivable" as const,
  vendor_receivable_id: r.vendorReceivableId,
  vendor: { id: r.vendor.id, name: r.vendor.name },
  debtor: { id: r.debtor.id, name: r.debtor.name },
  amount_cents: r.amountCents,
  currency: r.currency,
  receivable_date: r.receivableDate,
  due_date: r.dueDate,
  status: r.status,
  portal_status: r.portalStatus,
  po_number: r.poNumber,
  detected_at: isoInstant(DateTime.toEpochMillis(r.detectedAt)),
  updated_at: isoInstant(DateTime.toEpochMillis(r.updatedAt))
})

/** How many items match, over every page. */
const TotalCount = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** The list envelope of the vendors and debtors lists. */
export const ListOf = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(item), totalCount: TotalCount }).pipe(
    Schema.encodeKeys({ totalCount: "total_count" })
  )

const pageFields = <S extends Schema.Top>(item: S) => ({
  object: Schema.Literal("list"),
  data: Schema.Array(item),
  hasMore: Schema.Boolean,
  totalCount: TotalCount
})
const pageKeys = { hasMore: "has_more", totalCount: "total_count" } as const

/** A list envelope that pages, and so says whether more follow. */
export const PageOf = <S extends Schema.Top>(item: S) =>
  Schema.Struct(pageFields(item)).pipe(Schema.encodeKeys(pageKeys))

/**
 * The receivables list's envelope: a page, and the safe watermark to pass back as
 * `verified_since` (`core/shared/domain/ListQuery.ts`, `nextVerifiedSince`).
 */
export const ReceivableList = Schema.Struct({
  ...pageFields(Receivable),
  // Described on the wire (string) side, which is what the OpenAPI document shows.
  nextVerifiedSince: Schema.String.annotate({
    format: "date-time",
    description:
      "Pass this as `verified_since` on your next poll: no change committed after this response has an `updated_at` before it. Take it from the first page of a poll. At or before the time of the response; earlier while a sync of one of your pairs is running."
  }).pipe(Schema.decodeTo(Schema.DateTimeUtc, SchemaTransformation.dateTimeUtcFromString))
})
  .pipe(Schema.encodeKeys({ ...pageKeys, nextVerifiedSince: "next_verified_since" }))
  .annotate({ identifier: "ReceivableList" })
export type ReceivableList = typeof ReceivableList.Type

/** What a pair's syncs are doing: paused by an operator, failing (its last run failed), or active. */
export const IntegrationState = Schema.Literals(["active", "paused", "failing"])
export type IntegrationState = typeof IntegrationState.Type

/** A pair's newest finished sync run, as `sync_runs` recorded it. */
export const LastSync = Schema.Struct({
  startedAt: Timestamp,
  finishedAt: Timestamp,
  outcome: Schema.Literals(["succeeded", "failed"]),
  created: Schema.Int,
  updated: Schema.Int,
  unchanged: Schema.Int,
  quarantined: Schema.Int.annotate({
    description: "Documents refused by validation; their receivables kept their state"
  }),
  error: Schema.NullOr(Schema.String).annotate({
    description:
      "Why the run failed, in a sentence of its class (never the portal's address or the run's own detail, which only the service's operators see); null on success"
  }),
  // Open on the wire: a later version may add a class, and a client that validates answers must
  // keep reading them (spec section 9), so the known classes are described, not enumerated.
  errorClass: Schema.NullOr(Schema.String).annotate({
    description: `What kind of failure it was, for programs to branch on; null on success. One of ${RunErrorClass.literals.map((name) => `\`${name}\``).join(", ")}; more may be added, so read a class you do not know as \`sync_failed\`.`
  })
})
  .pipe(Schema.encodeKeys({ startedAt: "started_at", finishedAt: "finished_at", errorClass: "error_class" }))
  .annotate({ identifier: "LastSync" })
export type LastSync = typeof LastSync.Type

/** A vendor-debtor pair's integration with its debtor's portal: never its configuration. */
export const Integration = Schema.Struct({
  id: PairId,
  object: Schema.Literal("integration"),
  vendor: VendorRef,
  debtor: DebtorRef,
  connector: Schema.String.annotate({ description: "The kind of portal connector, such as `coupa` or `file`" }),
  state: IntegrationState.annotate({
    description: "`paused` by an operator; `failing` when its last run failed (it is retried); otherwise `active`"
  }),
  lastSync: Schema.NullOr(LastSync).annotate({ description: "The newest finished sync run; null before the first" }),
  estimatedNextUpdateAt: Schema.NullOr(Timestamp).annotate({
    description: "When the pair is next synced (its receivables show the same); null when paused"
  })
})
  .pipe(Schema.encodeKeys({ lastSync: "last_sync", estimatedNextUpdateAt: "estimated_next_update_at" }))
  .annotate({ identifier: "Integration" })
export type Integration = typeof Integration.Type
