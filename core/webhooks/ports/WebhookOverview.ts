/**
 * What the dashboard shows of webhooks beyond the management service: the organization's disabled
 * endpoints (the banner on every page and the overview's "Needs attention"), and each endpoint's
 * health (its last attempt, the share of its recent attempts that succeeded, what waits). Reads
 * only; every read filters by the organization. Depends on `effect` and core only.
 */
import { Context, type DateTime, type Effect } from "effect"
import type { OrgId } from "../../shared/domain/Ids.ts"
import type { AttemptOutcome, DisabledReason, WebhookEndpointId } from "../domain/Webhooks.ts"

export interface DisabledEndpoint {
  readonly id: WebhookEndpointId
  readonly url: string
  readonly reason: DisabledReason
  readonly disabledAt: DateTime.Utc | null
}

/** How many recent attempts the success rate is over. */
export const recentAttempts = 50
/** Waiting deliveries are counted up to this; beyond, the page says "more than". */
export const pendingCountCap = 1000

export interface EndpointHealth {
  readonly endpointId: WebhookEndpointId
  readonly lastAttempt: { readonly outcome: AttemptOutcome; readonly at: DateTime.Utc } | null
  /** Among the endpoint's latest `recentAttempts` attempts (0 when it has none). */
  readonly attempts: number
  readonly succeeded: number
  /** Deliveries pending or sending, counted to `pendingCountCap` at most. */
  readonly pending: number
}

export class WebhookOverview extends Context.Service<
  WebhookOverview,
  {
    /** The organization's disabled endpoints in id order, at most `limit`. */
    readonly disabled: (org: OrgId, limit: number) => Effect.Effect<ReadonlyArray<DisabledEndpoint>>
    /** The health of the organization's endpoints among `ids`; another organization's ids are skipped. */
    readonly health: (org: OrgId, ids: ReadonlyArray<WebhookEndpointId>) => Effect.Effect<ReadonlyArray<EndpointHealth>>
  }
>()("core/WebhookOverview") {}
