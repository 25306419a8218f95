/**
 * The events of spec section 6 as the feed serves them (`GET /v1/events`): the envelope (`id`,
 * `type`, `created_at`, `data`) plus `sequence`, the event's place in its organization's feed.
 *
 * `data` by type (docs/decisions.md, "Events"):
 * - `receivable.created`: `{receivable}`, the receivable as it was created;
 * - `receivable.updated`: `{receivable, changes}`, the receivable after the change, and each changed
 *   field's `{from, to}` as in its history;
 * - `receivable.status_changed`: exactly the fields of spec section 6.
 *
 * The receivable in an event is the single receivable's object without `history` (the event is
 * a point in it) and without `estimated_next_update_at` (a schedule, which moves without an event).
 */
import { DateTime, Schema } from "effect"
import { type DebtorId, ReceivableId, type VendorId } from "../../shared/domain/Ids.ts"
import { CurrencyCode, IsoDate, Metadata } from "../../shared/domain/Values.ts"
import { Changes, DebtorRef, type ReceivableState, receivableWireFields, VendorRef } from "./Resources.ts"
import { Status } from "./Status.ts"

export const eventTypes = ["receivable.created", "receivable.updated", "receivable.status_changed"] as const
export const EventType = Schema.Literals(eventTypes)
export type EventType = typeof EventType.Type

/** An instant in wire form, as events are written: `2026-11-21T03:46:13.000Z`. */
const InstantText = Schema.String.annotate({ description: "ISO 8601 timestamp (UTC)", format: "date-time" })

/** A receivable as an event carries it, in wire form. */
export const EventReceivable = Schema.Struct({
  id: ReceivableId,
  object: Schema.Literal("receivable"),
  vendor_receivable_id: Schema.NullOr(Schema.String),
  vendor: VendorRef,
  debtor: DebtorRef,
  amount_cents: Schema.Int,
  currency: CurrencyCode,
  receivable_date: IsoDate,
  due_date: Schema.NullOr(IsoDate),
  status: Status,
  portal_status: Schema.String,
  po_number: Schema.NullOr(Schema.String),
  detected_at: InstantText,
  updated_at: InstantText,
  metadata: Metadata
}).annotate({ identifier: "EventReceivable" })
export type EventReceivable = typeof EventReceivable.Type

interface Refs {
  readonly vendor: { readonly id: VendorId; readonly name: string }
  readonly debtor: { readonly id: DebtorId; readonly name: string }
}

/** The receivable as an event carries it: after the change the event reports. */
export const receivableSnapshot = (
  receivable: { readonly id: ReceivableId; readonly state: ReceivableState },
  refs: Refs,
  detectedAt: DateTime.Utc,
  updatedAt: DateTime.Utc
): EventReceivable => ({
  ...receivableWireFields({ id: receivable.id, ...refs, ...receivable.state, detectedAt, updatedAt }),
  metadata: receivable.state.metadata
})

const StatusChangedData = Schema.Struct({
  receivable_id: ReceivableId,
  vendor: VendorRef,
  debtor: DebtorRef,
  previous_status: Status,
  new_status: Status,
  previous_portal_status: Schema.String,
  new_portal_status: Schema.String,
  changed_at: InstantText
}).annotate({ identifier: "ReceivableStatusChangedData" })

const envelope = <const Type extends EventType, Data extends Schema.Top>(type: Type, data: Data, identifier: string) =>
  Schema.Struct({
    id: Schema.String.annotate({ description: "The event's id: evt_ and 32 hexadecimal characters" }),
    object: Schema.Literal("event"),
    type: Schema.Literal(type),
    sequence: Schema.Int.annotate({
      description: "The event's place in your organization's feed: strictly increasing, in the order of commit"
    }),
    created_at: InstantText.annotate({ description: "When the change happened (ISO 8601)" }),
    data
  }).annotate({ identifier })

export const ReceivableCreated = envelope(
  "receivable.created",
  Schema.Struct({ receivable: EventReceivable }),
  "ReceivableCreatedEvent"
)
export const ReceivableUpdated = envelope(
  "receivable.updated",
  Schema.Struct({ receivable: EventReceivable, changes: Changes }),
  "ReceivableUpdatedEvent"
)
export const ReceivableStatusChanged = envelope(
  "receivable.status_changed",
  StatusChangedData,
  "ReceivableStatusChangedEvent"
)

/** An event in wire form, as the feed serves it. */
export const Event = Schema.Union([ReceivableCreated, ReceivableUpdated, ReceivableStatusChanged]).annotate({
  identifier: "Event"
})

/** An event as stored: its wire form is this with `id` from `eventId`. */
export interface StoredEvent {
  readonly batch: bigint
  readonly ordinal: number
  readonly sequence: number
  readonly type: EventType
  readonly createdAt: DateTime.Utc
  readonly data: unknown
}

const maxBatch = 2n ** 63n - 1n

/**
 * An event's id names its place: the sync that wrote it (a random 63-bit batch number, so that ids
 * tell nothing of other organizations) and its ordinal within that sync.
 */
export const eventId = (batch: bigint, ordinal: number): string =>
  `evt_${batch.toString(16).padStart(16, "0")}${ordinal.toString(16).padStart(16, "0")}`

/** The batch and ordinal an event id names; none for text that is no event id. */
export const parseEventId = (id: string): { readonly batch: bigint; readonly ordinal: number } | undefined => {
  const match = /^evt_([0-9a-f]{16})([0-9a-f]{16})$/.exec(id)
  if (match === null) return undefined
  const batch = BigInt(`0x${match[1]}`)
  const ordinal = BigInt(`0x${match[2]}`)
  if (batch > maxBatch || ordinal < 1n || ordinal > BigInt(Number.MAX_SAFE_INTEGER)) return undefined
  return { batch, ordinal: Number(ordinal) }
}

/** The wire form of a stored event. */
export const toWire = (event: StoredEvent) => ({
  id: eventId(event.batch, event.ordinal),
  object: "event" as const,
  type: event.type,
  sequence: event.sequence,
  created_at: DateTime.formatIso(event.createdAt),
  data: event.data
})
