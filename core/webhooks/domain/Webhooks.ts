/**
 * Webhooks' domain: endpoints an organization registers, the deliveries of its events to them and
 * each delivery's attempts, with the statuses and the typed errors the management service answers.
 * A delivery's body is the event as `GET /v1/events/{id}` serves it; `webhook.test` is the one
 * type never in the feed. Depends on `effect` only.
 */
import { type DateTime, Schema } from "effect"
import { eventTypes } from "../../receivables/domain/Events.ts"
import type { OrgId } from "../../shared/domain/Ids.ts"

const prefixed = (prefix: string) => Schema.String.check(Schema.isPattern(new RegExp(`^${prefix}_[0-9a-f]{32}$`, "u")))

/** `we_` and 32 hexadecimal characters, led by the time it was made (pages list by id). */
export const WebhookEndpointId = prefixed("we").pipe(Schema.brand("WebhookEndpointId"))
export type WebhookEndpointId = typeof WebhookEndpointId.Type

/** The longest URL an endpoint may have, in UTF-16 code units as the service measures it. */
export const webhookUrlMaximum = 2048

/** `wd_` and 32 hexadecimal characters, led by the time it was made. */
export const WebhookDeliveryId = prefixed("wd").pipe(Schema.brand("WebhookDeliveryId"))
export type WebhookDeliveryId = typeof WebhookDeliveryId.Type

/** `wa_` and 32 hexadecimal characters, led by the time it was made. */
export const WebhookAttemptId = prefixed("wa").pipe(Schema.brand("WebhookAttemptId"))
export type WebhookAttemptId = typeof WebhookAttemptId.Type

/** The feed's event types an endpoint may subscribe to. */
export const SubscribableEventType = Schema.Literals(eventTypes)
export type SubscribableEventType = typeof SubscribableEventType.Type

/** Every type a delivery may carry: the feed's, and `webhook.test`, which is never in the feed. */
export const webhookEventTypes = [...eventTypes, "webhook.test"] as const
export const WebhookEventType = Schema.Literals(webhookEventTypes)
export type WebhookEventType = typeof WebhookEventType.Type

/**
 * Why an endpoint does not receive: switched off by its owner, failing for 5 days, or answered
 * `410 Gone`. Its pending deliveries wait, and resume when it is enabled again.
 */
export const DisabledReason = Schema.Literals(["manual", "failing", "gone"])
export type DisabledReason = typeof DisabledReason.Type

export interface WebhookEndpoint {
  readonly id: WebhookEndpointId
  readonly orgId: OrgId
  readonly url: string
  readonly description: string | null
  /** The feed's types it receives, at least one, without repeats; `webhook.test` always. */
  readonly eventTypes: ReadonlyArray<SubscribableEventType>
  readonly enabled: boolean
  /** Null while enabled. */
  readonly disabledReason: DisabledReason | null
  readonly disabledAt: DateTime.Utc | null
  /** While set and in the future, the previous secret signs too (the rotation's overlap). */
  readonly previousSecretExpiresAt: DateTime.Utc | null
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

/**
 * - `pending`: waiting for its next attempt (or for its endpoint to be enabled again);
 * - `sending`: an attempt is in flight under a worker's lease;
 * - `succeeded`: an attempt was answered 2xx in time;
 * - `failed`: every attempt of the schedule failed (`retry` starts it again).
 */
export const DeliveryStatus = Schema.Literals(["pending", "sending", "succeeded", "failed"])
export type DeliveryStatus = typeof DeliveryStatus.Type

export interface WebhookDelivery {
  readonly id: WebhookDeliveryId
  readonly endpointId: WebhookEndpointId
  /** The `webhook-id` header: the event's id (a test's own `evt_` id for `webhook.test`). */
  readonly eventId: string
  readonly eventType: WebhookEventType
  /** The event's place in the feed; null for `webhook.test`. */
  readonly sequence: number | null
  readonly status: DeliveryStatus
  readonly attempts: number
  /** When the next attempt is due (while sending: when the lease ends); null once succeeded or failed. */
  readonly nextAttemptAt: DateTime.Utc | null
  readonly lastAttemptAt: DateTime.Utc | null
  readonly createdAt: DateTime.Utc
}

/**
 * How an attempt ended: answered 2xx in time, answered otherwise, no answer within the timeout,
 * no connection (refused, reset, TLS, DNS), or an address the outbound policy refuses.
 */
export const AttemptOutcome = Schema.Literals(["succeeded", "http_error", "timeout", "connection_failed", "blocked"])
export type AttemptOutcome = typeof AttemptOutcome.Type

/**
 * What made an attempt: `scheduled` (a delivery's first, from the feed), `retry` (the schedule's
 * next after a failure), `manual_retry` (someone asked for it), `replay` (the first of a replayed
 * event), `test` (a `webhook.test`). Attempts recorded before the trigger was kept read `scheduled`.
 */
export const AttemptTrigger = Schema.Literals(["scheduled", "retry", "manual_retry", "replay", "test"])
export type AttemptTrigger = typeof AttemptTrigger.Type

/** What makes a delivery's first attempt: how the delivery came to be. */
export type FirstTrigger = Extract<AttemptTrigger, "scheduled" | "replay" | "test">

export interface WebhookAttempt {
  readonly id: WebhookAttemptId
  readonly deliveryId: WebhookDeliveryId
  readonly trigger: AttemptTrigger
  readonly startedAt: DateTime.Utc
  readonly durationMs: number
  readonly outcome: AttemptOutcome
  /** The answer's status code; null when there was none. */
  readonly responseStatus: number | null
  /** The start of the answer's body, bounded, as text. */
  readonly responseBody: string | null
  /** What went wrong, in words that never include a secret; null on success. */
  readonly error: string | null
}

/** A page of a keyset-paged list: `hasMore` tells whether the last item's id opens another. */
export interface KeysetPage<A> {
  readonly items: ReadonlyArray<A>
  readonly hasMore: boolean
}

export class WebhookEndpointNotFound extends Schema.TaggedError<WebhookEndpointNotFound>()("WebhookEndpointNotFound", {
  id: Schema.String
}) {}

export class WebhookDeliveryNotFound extends Schema.TaggedError<WebhookDeliveryNotFound>()("WebhookDeliveryNotFound", {
  id: Schema.String
}) {}

/** The URL cannot receive webhooks: not `https`, malformed, or at an address the policy refuses. */
export class WebhookUrlRejected extends Schema.TaggedError<WebhookUrlRejected>()("WebhookUrlRejected", {
  message: Schema.String
}) {}

/** A field other than the URL is not acceptable (`description`, `event_types`). */
export class WebhookEndpointRejected extends Schema.TaggedError<WebhookEndpointRejected>()("WebhookEndpointRejected", {
  field: Schema.String,
  message: Schema.String
}) {}

/** The organization has as many endpoints as it may: another is refused until one is removed. */
export class WebhookEndpointLimitReached extends Schema.TaggedError<WebhookEndpointLimitReached>()(
  "WebhookEndpointLimitReached",
  { limit: Schema.Number }
) {}

/** What a person is told when the organization has as many endpoints as it may. */
export const endpointLimitMessage = (refusal: WebhookEndpointLimitReached) =>
  `Your organization has ${refusal.limit} webhook endpoints, the most it may have: remove one before creating another.`

/**
 * A replay the organization's bounds leave no room for: its deliveries waiting (queued, not yet
 * delivered or given up) would pass `limit`, or it has `limit` replays in flight (a replay is in
 * flight while a delivery it queued waits for its first attempt). Both free as deliveries are made.
 */
export class WebhookOrganizationBusy extends Schema.TaggedError<WebhookOrganizationBusy>()("WebhookOrganizationBusy", {
  bound: Schema.Literals(["waiting", "replays"]),
  limit: Schema.Number
}) {}

/** What a person is told when a replay passes one of the organization's bounds: what to do. */
export const organizationBusyMessage = (refusal: WebhookOrganizationBusy) =>
  refusal.bound === "waiting"
    ? `This replay would leave your organization more than ${refusal.limit} webhook deliveries waiting, the most it may have: wait until more of them are delivered, or replay a shorter window.`
    : `Your organization has ${refusal.limit} replays in flight, the most it may have: wait until their deliveries have been attempted, then replay again.`

/** A replay window that starts before the oldest event kept, or ends before it starts. */
export class WebhookReplayRejected extends Schema.TaggedError<WebhookReplayRejected>()("WebhookReplayRejected", {
  message: Schema.String,
  /** The earliest `since` accepted now (ISO 8601), where retention is the reason. */
  oldestAvailable: Schema.NullOr(Schema.String)
}) {}

/** The endpoint has as many attempts in flight as its cap allows: a test would exceed it. */
export class WebhookEndpointBusy extends Schema.TaggedError<WebhookEndpointBusy>()("WebhookEndpointBusy", {
  id: Schema.String
}) {}

/** `test` and `retry` need an enabled endpoint: a disabled one receives nothing. */
export class WebhookEndpointDisabled extends Schema.TaggedError<WebhookEndpointDisabled>()("WebhookEndpointDisabled", {
  id: Schema.String
}) {}
