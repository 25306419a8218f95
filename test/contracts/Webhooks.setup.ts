/**
 * What the webhook stores' contract suites share: an organization with a pair (so that it has a
 * feed), an endpoint made through `WebhookEndpointStore`, deliveries to add, claims and attempts'
 * outcomes through `WebhookDeliveryStore`.
 */
import { randomBytes } from "node:crypto"
import { DateTime, Effect } from "effect"
import type { PairStore } from "../../core/receivables/ports/PairStore.ts"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import { attemptId, deliveryId, endpointId } from "../../core/webhooks/domain/WebhookSigning.ts"
import type { AttemptTrigger, WebhookDeliveryId } from "../../core/webhooks/domain/Webhooks.ts"
import {
  type AttemptResult,
  type NewDelivery,
  WebhookDeliveryStore
} from "../../core/webhooks/ports/WebhookDeliveryStore.ts"
import { WebhookEndpointStore } from "../../core/webhooks/ports/WebhookEndpointStore.ts"
import { PairStoreHarness } from "./PairStore.harness.ts"

export const newEndpoint = (org: OrgId, at: DateTime.Utc, maxPerOrganization = 100) =>
  Effect.gen(function* () {
    return yield* (yield* WebhookEndpointStore).create({
      id: endpointId(randomBytes(16), DateTime.toEpochMillis(at)),
      orgId: org,
      url: "https://hooks.example/in",
      description: null,
      eventTypes: ["receivable.created"],
      enabled: true,
      sealedSecret: "v1:sealed",
      at,
      maxPerOrganization
    })
  })

export const deliveries = (count: number, at: DateTime.Utc, firstSequence = 1): ReadonlyArray<NewDelivery> =>
  Array.from({ length: count }, (_, i) => ({
    id: deliveryId(randomBytes(16), DateTime.toEpochMillis(at) + i),
    eventId: `evt_${randomBytes(16).toString("hex")}`,
    eventType: "receivable.created",
    sequence: firstSequence + i,
    body: `{"n":${i}}`,
    dueAt: at,
    trigger: "scheduled" as const
  }))

export const newOrg = Effect.gen(function* () {
  return (yield* (yield* PairStoreHarness).addPair({ dueInSeconds: 3600 })).orgId
})

export const claimAt = (owner: string, now: DateTime.Utc, perEndpoint: number, limit = 50) =>
  Effect.gen(function* () {
    return yield* (yield* WebhookDeliveryStore).claim({
      owner,
      now,
      leaseUntil: DateTime.add(now, { minutes: 1 }),
      limit,
      perEndpoint,
      perOrganization: limit,
      held: new Map()
    })
  })

export const outcome = (
  owner: string,
  org: OrgId,
  id: WebhookDeliveryId,
  at: DateTime.Utc,
  trigger: AttemptTrigger = "scheduled"
): AttemptResult => ({
  owner,
  orgId: org,
  attempt: {
    id: attemptId(randomBytes(16), DateTime.toEpochMillis(at)),
    deliveryId: id,
    trigger,
    startedAt: at,
    durationMs: 5,
    outcome: "succeeded" as const,
    responseStatus: 200,
    responseBody: "",
    error: null
  },
  next: { status: "succeeded" as const },
  endpoint: { health: "healthy" as const }
})

/** What both suites run on: the two stores over one set of tables, with the pairs' harness and store (whose syncs write the feed). */
export type WebhookStores = WebhookEndpointStore | WebhookDeliveryStore | PairStoreHarness | PairStore
