/**
 * The ids in the API's paths: the pattern of a well-formed one, which fuzzers and generated
 * clients read to make valid ids, and the shell variable the code samples take it from. The
 * server decodes any text there (a malformed id is a 404 like an unknown one), so the pattern
 * documents the form without the service refusing anything by it.
 */
import { Schema } from "effect"
import { ReceivableId } from "../../shared/domain/Ids.ts"
import { WebhookDeliveryId, WebhookEndpointId } from "../../webhooks/domain/Webhooks.ts"

export interface PathId {
  readonly pattern: string
  readonly variable: string
}

const patternOf = (schema: Schema.Top): string => {
  const { pattern } = Schema.toJsonSchemaDocument(schema).schema as { readonly pattern?: unknown }
  if (typeof pattern !== "string") throw new Error("An id schema without a pattern")
  return pattern
}

const webhookEndpoint = { pattern: patternOf(WebhookEndpointId), variable: "WEBHOOK_ENDPOINT_ID" }
const webhookDelivery = { pattern: patternOf(WebhookDeliveryId), variable: "WEBHOOK_DELIVERY_ID" }

/** By the path template the id appears in. */
export const pathIds: ReadonlyMap<string, PathId> = new Map([
  ...["", "/rotate_secret", "/test", "/replay", "/deliveries"].map(
    (tail) => [`/v1/webhook_endpoints/{id}${tail}`, webhookEndpoint] as const
  ),
  ...["", "/retry"].map((tail) => [`/v1/webhook_deliveries/{id}${tail}`, webhookDelivery] as const),
  ["/v1/receivables/{id}", { pattern: patternOf(ReceivableId), variable: "RECEIVABLE_ID" }],
  // As `eventId` writes them: the sync's batch and the event's ordinal, 16 hex characters each.
  ["/v1/events/{id}", { pattern: "^evt_[0-9a-f]{32}$", variable: "EVENT_ID" }]
])
