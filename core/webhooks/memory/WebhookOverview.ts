/**
 * `WebhookOverview` in memory, over the webhook tables the memory `WebhookEndpointStore` and
 * `WebhookDeliveryStore` write in `WebhooksState`, read only; held to the same contract as PostgreSQL's
 * (`test/contracts/WebhookOverview.contract.ts`). An endpoint's deliveries are found through their
 * index, as `webhook_deliveries_endpoint_idx` finds them. Depends on `effect` and core only.
 */
import { DateTime, Effect, Layer } from "effect"
import type { OrgId } from "../../shared/domain/Ids.ts"
import { compareText, idKey } from "../../shared/memory/Keys.ts"
import type { DisabledReason, WebhookEndpointId } from "../domain/Webhooks.ts"
import {
  type DisabledEndpoint,
  type EndpointHealth,
  pendingCountCap,
  recentAttempts,
  WebhookOverview
} from "../ports/WebhookOverview.ts"
import { deliveriesOf, type WebhookEndpointRow, WebhooksState } from "./WebhooksState.ts"

const byId = (a: WebhookEndpointRow, b: WebhookEndpointRow) => compareText(a.endpoint.id, b.endpoint.id)

export const layerMemory: Layer.Layer<WebhookOverview, never, WebhooksState> = Layer.effect(
  WebhookOverview,
  Effect.gen(function* () {
    const state = yield* WebhooksState
    const own = (org: OrgId) => (row: WebhookEndpointRow) => idKey(row.endpoint.orgId) === idKey(org)

    const disabled = (org: OrgId, limit: number) =>
      Effect.sync(() =>
        [...state.webhookEndpoints.values()]
          .filter((row) => own(org)(row) && !row.endpoint.enabled)
          .sort(byId)
          .slice(0, Math.max(0, limit))
          .map(
            ({ endpoint }): DisabledEndpoint => ({
              id: endpoint.id,
              url: endpoint.url,
              reason: endpoint.disabledReason as DisabledReason,
              disabledAt: endpoint.disabledAt
            })
          )
      )

    const healthOf = (org: OrgId, row: WebhookEndpointRow): EndpointHealth => {
      const deliveries = deliveriesOf(state, row.endpoint.id).filter((d) => idKey(d.orgId) === idKey(org))
      // The newest attempts are among the newest attempted deliveries': ids lead with their time.
      const attempts = deliveries
        .filter((d) => d.delivery.lastAttemptAt !== null)
        .sort((a, b) => compareText(b.delivery.id, a.delivery.id))
        .slice(0, recentAttempts)
        .flatMap((d) => d.attempts)
        .sort((a, b) => DateTime.toEpochMillis(b.startedAt) - DateTime.toEpochMillis(a.startedAt))
        .slice(0, recentAttempts)
      const last = attempts[0]
      const waiting = deliveries.filter((d) => d.delivery.status === "pending" || d.delivery.status === "sending")
      return {
        endpointId: row.endpoint.id,
        lastAttempt: last === undefined ? null : { outcome: last.outcome, at: last.startedAt },
        attempts: attempts.length,
        succeeded: attempts.filter((a) => a.outcome === "succeeded").length,
        pending: Math.min(waiting.length, pendingCountCap)
      }
    }

    const health = (org: OrgId, ids: ReadonlyArray<WebhookEndpointId>) =>
      Effect.sync(() =>
        Array.from(new Set(ids), (id) => state.webhookEndpoints.get(id))
          .filter((row): row is WebhookEndpointRow => row !== undefined && own(org)(row))
          .sort(byId)
          .map((row) => healthOf(org, row))
      )

    return WebhookOverview.of({ disabled, health })
  })
)
