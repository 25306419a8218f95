/**
 * The API's JSON as TypeScript types, snake_case exactly as on the wire. Written for the client so
 * that it depends on nothing; the service's test suite holds each type equal to the contract's
 * encoded schema, so the two cannot drift. New fields may appear in any object (the API adds
 * fields without a new version): read what you know, keep or ignore the rest.
 */

export type Status = "PENDING" | "APPROVED" | "PAID" | "SOLD" | "DISPUTED" | "ACKNOWLEDGED"

/** A vendor or debtor as a receivable, an event or an integration names it. */
export interface PartyRef {
  readonly id: string
  readonly name: string
}

export interface FieldChange {
  readonly from: string | number | null
  readonly to: string | number | null
}

/** Changed field (`status`, `amount_cents`, ..., or `metadata.<key>`) to its old and new value. */
export interface Changes {
  readonly [field: string]: FieldChange
}

export interface HistoryEntry {
  readonly changed_at: string
  readonly changes: Changes
}

/** Raw portal data: keys vary by portal. */
export interface Metadata {
  readonly [key: string]: string
}

/** A receivable's own fields, as the list, a single receivable and an event all carry them. */
export interface ReceivableFields {
  readonly id: string
  readonly object: "receivable"
  readonly vendor_receivable_id: string | null
  readonly vendor: PartyRef
  readonly debtor: PartyRef
  readonly amount_cents: number
  readonly currency: string
  readonly receivable_date: string
  readonly due_date: string | null
  readonly status: Status
  readonly portal_status: string
  readonly po_number: string | null
  readonly detected_at: string
  readonly updated_at: string
}

export interface Receivable extends ReceivableFields {
  readonly estimated_next_update_at: string | null
  /** Always on a single receivable; on list items only with `expand: ["history"]`. */
  readonly history?: ReadonlyArray<HistoryEntry>
  /** Always on a single receivable; on list items only with `expand: ["metadata"]`. */
  readonly metadata?: Metadata
}

interface Party<Kind extends string> {
  readonly id: string
  readonly object: Kind
  readonly name: string
  readonly created_at: string
  readonly estimated_next_update_at: string | null
}
export type Vendor = Party<"vendor">
export type Debtor = Party<"debtor">

export interface LastSync {
  readonly started_at: string
  readonly finished_at: string
  readonly outcome: "succeeded" | "failed"
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly quarantined: number
  /** A sentence of `error_class`: never the portal's address or the run's own detail. */
  readonly error: string | null
  /**
   * What kind of failure it was, null on success: `portal_unreachable`, `portal_timeout`,
   * `portal_rate_limited`, `portal_credentials_refused`, `portal_error`,
   * `portal_answer_unreadable`, `export_unreadable`, `secret_unavailable`,
   * `configuration_invalid`, `deadline_exceeded` or `sync_failed`. More may be added: read one
   * you do not know as `sync_failed`.
   */
  readonly error_class: string | null
}

export interface Integration {
  readonly id: string
  readonly object: "integration"
  readonly vendor: PartyRef
  readonly debtor: PartyRef
  readonly connector: string
  readonly state: "active" | "paused" | "failing"
  readonly last_sync: LastSync | null
  readonly estimated_next_update_at: string | null
}

/** The vendors, debtors and integrations lists: every match in one answer. */
export interface List<Item> {
  readonly object: "list"
  readonly data: ReadonlyArray<Item>
  readonly total_count: number
}

export interface ReceivableList {
  readonly object: "list"
  readonly data: ReadonlyArray<Receivable>
  readonly has_more: boolean
  readonly total_count: number
  /** Pass as `verified_since` on the next poll: no change committed later has an older `updated_at`. */
  readonly next_verified_since: string
}

/**
 * A receivable as an event carries it: its own fields and metadata, without `history` (the event
 * is a point in it) and without `estimated_next_update_at` (a schedule, which moves without events).
 */
export interface EventReceivable extends ReceivableFields {
  readonly metadata: Metadata
}

interface EventOf<Type extends string, Data> {
  readonly id: string
  readonly object: "event"
  readonly type: Type
  /** The event's place in your organization's feed: strictly increasing, in commit order. */
  readonly sequence: number
  readonly created_at: string
  readonly data: Data
}

export type ReceivableCreatedEvent = EventOf<"receivable.created", { readonly receivable: EventReceivable }>
export type ReceivableUpdatedEvent = EventOf<
  "receivable.updated",
  { readonly receivable: EventReceivable; readonly changes: Changes }
>
export type ReceivableStatusChangedEvent = EventOf<
  "receivable.status_changed",
  {
    readonly receivable_id: string
    readonly vendor: PartyRef
    readonly debtor: PartyRef
    readonly previous_status: Status
    readonly new_status: Status
    readonly previous_portal_status: string
    readonly new_portal_status: string
    readonly changed_at: string
  }
>
export type Event = ReceivableCreatedEvent | ReceivableUpdatedEvent | ReceivableStatusChangedEvent
export type EventType = Event["type"]

export interface EventList {
  readonly object: "list"
  readonly data: ReadonlyArray<Event>
  readonly has_more: boolean
  /** Your organization's newest sequence when this page was read. */
  readonly latest_sequence: number
}

interface ErrorOf<Type extends string, Code extends string> {
  readonly error: {
    readonly type: Type
    readonly code: Code
    readonly message: string
    /** The one parameter at fault, when there is one. */
    readonly param?: string
  }
}

/** Every error body the API answers, one member per kind of refusal. */
export type ErrorResponse =
  | ErrorOf<"invalid_request_error", "parameter_invalid" | "parameter_unknown" | "cursor_expired">
  | ErrorOf<"authentication_error", "api_key_missing" | "api_key_invalid" | "api_key_revoked">
  | ErrorOf<"permission_error", "permission_denied">
  | ErrorOf<"invalid_request_error", "resource_missing">
  | ErrorOf<"invalid_request_error", "method_not_allowed">
  | ErrorOf<"invalid_request_error", "request_timeout">
  | ErrorOf<"invalid_request_error", "content_type_unsupported">
  | ErrorOf<"rate_limit_error", "rate_limited">
  | ErrorOf<"api_error", "service_unavailable">
  | ErrorOf<"api_error", "internal_error">
export type ErrorType = ErrorResponse["error"]["type"]
export type ErrorCode = ErrorResponse["error"]["code"]

export type WebhookEventType = EventType | "webhook.test"

/** A webhook endpoint, as every answer but create's and rotate's carries it: without its secret. */
export interface WebhookEndpoint {
  readonly id: string
  readonly object: "webhook_endpoint"
  readonly url: string
  readonly description: string | null
  readonly event_types: ReadonlyArray<EventType>
  readonly enabled: boolean
  /** Why it receives nothing; null while enabled. */
  readonly disabled_reason: "manual" | "failing" | "gone" | null
  /** Until then, after a rotation, the previous secret signs every webhook too. */
  readonly previous_secret_expires_at: string | null
  readonly created_at: string
  readonly updated_at: string
}

/** The answer to create and rotate: the endpoint with its signing secret, shown this once. */
export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  readonly secret: string
}

export interface WebhookEndpointDeleted {
  readonly id: string
  readonly object: "webhook_endpoint"
  readonly deleted: true
}

export interface WebhookAttempt {
  readonly id: string
  /**
   * What made the attempt: the delivery's first (`scheduled`), the schedule's next after a failure
   * (`retry`), a retry you asked for (`manual_retry`), the first of a replayed event (`replay`), or a
   * test (`test`). Attempts made before the trigger was kept read `scheduled`.
   */
  readonly trigger: "scheduled" | "retry" | "manual_retry" | "replay" | "test"
  readonly attempted_at: string
  readonly outcome: "succeeded" | "http_error" | "timeout" | "connection_failed" | "blocked"
  readonly status_code: number | null
  readonly error: string | null
  readonly duration_ms: number
  /** The start of the answer's body: at most 200 characters, without controls, secrets redacted. */
  readonly response_body: string | null
}

export interface WebhookDelivery {
  readonly id: string
  readonly object: "webhook_delivery"
  readonly webhook_endpoint_id: string
  readonly event_id: string
  readonly event_type: WebhookEventType
  readonly sequence: number | null
  readonly status: "pending" | "sending" | "succeeded" | "failed"
  readonly attempt_count: number
  readonly next_attempt_at: string | null
  readonly last_attempt_at: string | null
  readonly created_at: string
}

export interface WebhookDeliveryWithAttempts extends WebhookDelivery {
  readonly attempts: ReadonlyArray<WebhookAttempt>
}

export interface WebhookReplayQueued {
  readonly object: "webhook_replay"
  readonly queued: number
}

/** A keyset page: continue with `starting_after` set to the last item's id while `has_more`. */
export interface KeysetList<Item> {
  readonly object: "list"
  readonly data: ReadonlyArray<Item>
  readonly has_more: boolean
}
