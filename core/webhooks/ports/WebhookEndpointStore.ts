/**
 * What webhooks need from storage about endpoints (`webhook_endpoints`): each with its sealed
 * secrets, found, listed, changed and removed within its organization. Deliveries are
 * `WebhookDeliveryStore`'s; two changes here reach them, each in the same step as the endpoint's
 * row: enabling makes what waited due, and removing takes them away. Every read and change filters
 * by the organization.
 */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { OrgId } from "../../shared/domain/Ids.ts"
import type {
  DisabledReason,
  KeysetPage,
  SubscribableEventType,
  WebhookEndpoint,
  WebhookEndpointId,
  WebhookEndpointLimitReached
} from "../domain/Webhooks.ts"

export interface NewEndpoint {
  readonly id: WebhookEndpointId
  readonly orgId: OrgId
  readonly url: string
  readonly description: string | null
  readonly eventTypes: ReadonlyArray<SubscribableEventType>
  readonly enabled: boolean
  /** The secret as the `SecretBox` sealed it: never the secret itself. */
  readonly sealedSecret: string
  readonly at: DateTime.Utc
  /** The most endpoints its organization may have, this one included. */
  readonly maxPerOrganization: number
}

/** What an update changes; an absent field stays as it is. */
export interface EndpointChange {
  readonly url?: string | undefined
  readonly description?: string | null | undefined
  readonly eventTypes?: ReadonlyArray<SubscribableEventType> | undefined
  /** Enabling clears the reason and the failures, and makes the waiting deliveries due; disabling sets the reason. */
  readonly enabled?:
    | { readonly enabled: true }
    | { readonly enabled: false; readonly reason: DisabledReason }
    | undefined
}

/** An endpoint's sealed secrets: the current one, and the previous while its overlap lasts. */
export interface SealedSecrets {
  readonly current: string
  readonly previous: string | null
  readonly previousExpiresAt: DateTime.Utc | null
}

export class WebhookEndpointStore extends Context.Service<
  WebhookEndpointStore,
  {
    /**
     * Adds the endpoint; its cursor starts at its organization's newest event (it receives what
     * follows). Refused with `WebhookEndpointLimitReached` when its organization already has
     * `maxPerOrganization`: counted and added in one step, so creations at once cannot pass it.
     */
    readonly create: (endpoint: NewEndpoint) => Effect.Effect<WebhookEndpoint, WebhookEndpointLimitReached>
    /** The organization's endpoints in id order (oldest first), whose ids sort after `after`. */
    readonly list: (
      org: OrgId,
      page: { readonly after?: string | undefined; readonly limit: number }
    ) => Effect.Effect<KeysetPage<WebhookEndpoint>>
    readonly find: (org: OrgId, id: WebhookEndpointId) => Effect.Effect<Option.Option<WebhookEndpoint>>
    readonly update: (
      org: OrgId,
      id: WebhookEndpointId,
      change: EndpointChange,
      at: DateTime.Utc
    ) => Effect.Effect<Option.Option<WebhookEndpoint>>
    /** Removes the endpoint with its deliveries and attempts; false when there was none. */
    readonly remove: (org: OrgId, id: WebhookEndpointId) => Effect.Effect<boolean>
    /** Makes `sealed` the current secret; the current one becomes the previous until `previousUntil`. */
    readonly rotate: (
      org: OrgId,
      id: WebhookEndpointId,
      sealed: string,
      previousUntil: DateTime.Utc,
      at: DateTime.Utc
    ) => Effect.Effect<Option.Option<WebhookEndpoint>>
    readonly secrets: (org: OrgId, id: WebhookEndpointId) => Effect.Effect<Option.Option<SealedSecrets>>
  }
>()("core/WebhookEndpointStore") {}
