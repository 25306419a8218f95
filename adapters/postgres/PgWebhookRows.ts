/**
 * The rows of webhooks' tables (migration 0017) and their reading into the domain's records.
 * The columns of secrets are selected only by `PgWebhookEndpointStore.secrets` and by claims.
 */
import { DateTime } from "effect"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import { answerExcerpt } from "../../core/webhooks/domain/AnswerExcerpt.ts"
import type {
  AttemptOutcome,
  AttemptTrigger,
  DeliveryStatus,
  DisabledReason,
  SubscribableEventType,
  WebhookAttempt,
  WebhookAttemptId,
  WebhookDelivery,
  WebhookDeliveryId,
  WebhookEndpoint,
  WebhookEndpointId,
  WebhookEventType
} from "../../core/webhooks/domain/Webhooks.ts"
import type { SealedSecrets } from "../../core/webhooks/ports/WebhookEndpointStore.ts"

const instant = (date: Date) => DateTime.fromDateUnsafe(date)
const maybeInstant = (date: Date | null) => (date === null ? null : instant(date))

export interface EndpointRow {
  readonly id: string
  readonly org_id: string
  readonly url: string
  readonly description: string | null
  readonly event_types: ReadonlyArray<string>
  readonly enabled: boolean
  readonly disabled_reason: string | null
  readonly disabled_at: Date | null
  readonly previous_secret_expires_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

export const endpointColumns = `id, org_id, url, description, event_types, enabled, disabled_reason, disabled_at,
  previous_secret_expires_at, created_at, updated_at`

export const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id as WebhookEndpointId,
  orgId: row.org_id as OrgId,
  url: row.url,
  description: row.description,
  eventTypes: row.event_types as ReadonlyArray<SubscribableEventType>,
  enabled: row.enabled,
  disabledReason: row.disabled_reason as DisabledReason | null,
  disabledAt: maybeInstant(row.disabled_at),
  previousSecretExpiresAt: maybeInstant(row.previous_secret_expires_at),
  createdAt: instant(row.created_at),
  updatedAt: instant(row.updated_at)
})

export interface DeliveryRow {
  readonly id: string
  readonly endpoint_id: string
  readonly event_id: string
  readonly event_type: string
  readonly sequence: string | null
  readonly status: string
  readonly attempts: number
  readonly next_attempt_at: Date | null
  readonly last_attempt_at: Date | null
  readonly created_at: Date
}

export const deliveryColumns = `id, endpoint_id, event_id, event_type, sequence::text AS sequence, status, attempts,
  next_attempt_at, last_attempt_at, created_at`

export const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id as WebhookDeliveryId,
  endpointId: row.endpoint_id as WebhookEndpointId,
  eventId: row.event_id,
  eventType: row.event_type as WebhookEventType,
  sequence: row.sequence === null ? null : Number(row.sequence),
  status: row.status as DeliveryStatus,
  attempts: row.attempts,
  nextAttemptAt: maybeInstant(row.next_attempt_at),
  lastAttemptAt: maybeInstant(row.last_attempt_at),
  createdAt: instant(row.created_at)
})

export interface AttemptRow {
  readonly id: string
  readonly delivery_id: string
  readonly trigger: string
  readonly started_at: Date
  readonly duration_ms: number
  readonly outcome: string
  readonly response_status: number | null
  readonly response_body: string | null
  readonly error: string | null
}

export const toAttempt = (row: AttemptRow): WebhookAttempt => ({
  id: row.id as WebhookAttemptId,
  deliveryId: row.delivery_id as WebhookDeliveryId,
  trigger: row.trigger as AttemptTrigger,
  startedAt: instant(row.started_at),
  durationMs: row.duration_ms,
  outcome: row.outcome as AttemptOutcome,
  responseStatus: row.response_status,
  // Attempts recorded before answers were cut to an excerpt kept up to 4 KiB: cut them as they are read.
  responseBody: row.response_body === null ? null : answerExcerpt(row.response_body),
  error: row.error
})

/** The secret columns of `webhook_endpoints`, as sealed. */
export interface SecretsRow {
  readonly secret: string
  readonly previous_secret: string | null
  readonly previous_secret_expires_at: Date | null
}

export const toSecrets = (row: SecretsRow): SealedSecrets => ({
  current: row.secret,
  previous: row.previous_secret,
  previousExpiresAt: maybeInstant(row.previous_secret_expires_at)
})
