/**
 * The webhooks context's tables in the memory world: endpoints with their sealed secrets and
 * place in the feed, and deliveries with their attempts, indexed by endpoint as the PostgreSQL
 * schema indexes them. Depends on `effect` and core only.
 */
import { Context, type DateTime, Effect, Layer } from "effect"
import { idKey } from "../../shared/memory/Keys.ts"
import type { AttemptTrigger, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from "../domain/Webhooks.ts"
import type { SealedSecrets } from "../ports/WebhookEndpointStore.ts"

/** A webhook endpoint (`webhook_endpoints`), with its sealed secrets and its place in the feed. */
export interface WebhookEndpointRow {
  endpoint: WebhookEndpoint
  secrets: SealedSecrets
  /** The newest sequence fanned out to it. */
  cursor: number
  failingSince: DateTime.Utc | null
}

/** A delivery of an event to an endpoint (`webhook_deliveries`), with its attempts. */
export interface WebhookDeliveryRow {
  delivery: WebhookDelivery
  readonly orgId: string
  readonly body: string
  lease: { readonly owner: string; readonly until: DateTime.Utc } | null
  readonly attempts: Array<WebhookAttempt>
  /** What its next attempt will be recorded as having been made by. */
  nextTrigger: AttemptTrigger
  /** Attempts made by manual retries, beside the schedule's. */
  manualAttempts: number
  /** While a manual retry waits: when the schedule's next attempt was due (none: it had ended). */
  resumeAt: DateTime.Utc | null
}

export interface WebhookTables {
  /** Webhook endpoints by id. */
  readonly webhookEndpoints: Map<string, WebhookEndpointRow>
  /** Webhook deliveries by id. */
  readonly webhookDeliveries: Map<string, WebhookDeliveryRow>
  /** Each endpoint's deliveries' ids, as `webhook_deliveries_endpoint_idx` finds them. */
  readonly endpointDeliveries: Map<string, Set<string>>
}

/** The organization's endpoint of that id, as a query filtering by `org_id` finds it. */
export const endpointOf = (tables: WebhookTables, org: string, id: string): WebhookEndpointRow | undefined => {
  const row = tables.webhookEndpoints.get(id)
  return row !== undefined && idKey(row.endpoint.orgId) === idKey(org) ? row : undefined
}

/** The endpoint's deliveries, in the order they were stored. */
export const deliveriesOf = (tables: WebhookTables, endpointId: string): Array<WebhookDeliveryRow> =>
  Array.from(tables.endpointDeliveries.get(endpointId) ?? [], (id) => tables.webhookDeliveries.get(id)!)

export class WebhooksState extends Context.Service<WebhooksState, WebhookTables>()(
  "core/webhooks/memory/WebhooksState"
) {
  /** A fresh, empty state each time the layer is built. */
  static readonly layer: Layer.Layer<WebhooksState> = Layer.effect(
    WebhooksState,
    Effect.sync(() =>
      WebhooksState.of({ webhookEndpoints: new Map(), webhookDeliveries: new Map(), endpointDeliveries: new Map() })
    )
  )
}
