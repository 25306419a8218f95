/**
 * `WebhookEndpointStore` in memory, over the memory world's `WebhooksState`: endpoints with their
 * sealed secrets in the state's endpoint table, their cursor starting at the memory feed the
 * memory `PairStore` numbers; enabling and removing reach the endpoint's deliveries through their
 * index. Held to the port's contract (`test/contracts/WebhookEndpointStore.contract.ts`) as the
 * PostgreSQL adapter is. Depends on `effect` and core only.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { feedOf, ReceivablesState } from "../../receivables/memory/ReceivablesState.ts"
import type { OrgId } from "../../shared/domain/Ids.ts"
import { idKey } from "../../shared/memory/Keys.ts"
import { type WebhookEndpoint, type WebhookEndpointId, WebhookEndpointLimitReached } from "../domain/Webhooks.ts"
import { type EndpointChange, type NewEndpoint, WebhookEndpointStore } from "../ports/WebhookEndpointStore.ts"
import { deliveriesOf, endpointOf, WebhooksState } from "./WebhooksState.ts"

const make = Effect.gen(function* () {
  const state = yield* WebhooksState
  const receivables = yield* ReceivablesState

  const create = (input: NewEndpoint) =>
    Effect.suspend(() => {
      let held = 0
      for (const row of state.webhookEndpoints.values()) if (idKey(row.endpoint.orgId) === idKey(input.orgId)) held += 1
      if (held >= input.maxPerOrganization)
        return Effect.fail(new WebhookEndpointLimitReached({ limit: input.maxPerOrganization }))
      const endpoint: WebhookEndpoint = {
        id: input.id,
        orgId: input.orgId,
        url: input.url,
        description: input.description,
        eventTypes: input.eventTypes,
        enabled: input.enabled,
        disabledReason: input.enabled ? null : "manual",
        disabledAt: input.enabled ? null : input.at,
        previousSecretExpiresAt: null,
        createdAt: input.at,
        updatedAt: input.at
      }
      state.webhookEndpoints.set(input.id, {
        endpoint,
        secrets: { current: input.sealedSecret, previous: null, previousExpiresAt: null },
        cursor: feedOf(receivables, input.orgId).latestSequence,
        failingSince: null
      })
      return Effect.succeed(endpoint)
    })

  const list = (org: OrgId, page: { readonly after?: string | undefined; readonly limit: number }) =>
    Effect.sync(() => {
      const after = page.after
      const rows = [...state.webhookEndpoints.values()]
        .filter((row) => idKey(row.endpoint.orgId) === idKey(org) && (after === undefined || row.endpoint.id > after))
        .sort((a, b) => (a.endpoint.id < b.endpoint.id ? -1 : 1))
      return { items: rows.slice(0, page.limit).map((row) => row.endpoint), hasMore: rows.length > page.limit }
    })

  const find = (org: OrgId, id: WebhookEndpointId) =>
    Effect.sync(() => Option.map(Option.fromNullishOr(endpointOf(state, org, id)), (row) => row.endpoint))

  const update = (org: OrgId, id: WebhookEndpointId, change: EndpointChange, at: DateTime.Utc) =>
    Effect.sync(() => {
      const row = endpointOf(state, org, id)
      if (row === undefined) return Option.none()
      const was = row.endpoint
      const enabled = change.enabled
      row.endpoint = {
        ...was,
        url: change.url ?? was.url,
        description: change.description === undefined ? was.description : change.description,
        eventTypes: change.eventTypes ?? was.eventTypes,
        ...(enabled === undefined
          ? {}
          : enabled.enabled
            ? { enabled: true, disabledReason: null, disabledAt: null }
            : { enabled: false, disabledReason: enabled.reason, disabledAt: at }),
        updatedAt: at
      }
      // Enabled again, it starts afresh: its failures before were what disabled it, and what
      // waited for it is due now rather than at the back-off its failures had set.
      if (enabled?.enabled === true) {
        row.failingSince = null
        for (const waiting of deliveriesOf(state, id)) {
          const due = waiting.delivery.nextAttemptAt
          if (waiting.delivery.status === "pending" && due !== null) {
            waiting.delivery = { ...waiting.delivery, nextAttemptAt: DateTime.min(due, at) }
          }
        }
      }
      return Option.some(row.endpoint)
    })

  const remove = (org: OrgId, id: WebhookEndpointId) =>
    Effect.sync(() => {
      if (endpointOf(state, org, id) === undefined) return false
      state.webhookEndpoints.delete(id)
      for (const key of state.endpointDeliveries.get(id) ?? []) state.webhookDeliveries.delete(key)
      state.endpointDeliveries.delete(id)
      return true
    })

  const rotate = (org: OrgId, id: WebhookEndpointId, sealed: string, previousUntil: DateTime.Utc, at: DateTime.Utc) =>
    Effect.sync(() => {
      const row = endpointOf(state, org, id)
      if (row === undefined) return Option.none()
      row.secrets = { current: sealed, previous: row.secrets.current, previousExpiresAt: previousUntil }
      row.endpoint = { ...row.endpoint, previousSecretExpiresAt: previousUntil, updatedAt: at }
      return Option.some(row.endpoint)
    })

  const secrets = (org: OrgId, id: WebhookEndpointId) =>
    Effect.sync(() => Option.map(Option.fromNullishOr(endpointOf(state, org, id)), (row) => row.secrets))

  return WebhookEndpointStore.of({ create, list, find, update, remove, rotate, secrets })
})

export const layerMemory: Layer.Layer<WebhookEndpointStore, never, WebhooksState | ReceivablesState> = Layer.effect(
  WebhookEndpointStore,
  make
)
