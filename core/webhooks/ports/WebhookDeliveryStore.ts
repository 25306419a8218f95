/**
 * What webhooks need from storage about deliveries (`webhook_deliveries`, `webhook_attempts`, and
 * the endpoints' place in the feed): the fan-out of the events feed to deliveries from a cursor per
 * endpoint, the claim of due deliveries under a lease with a cap per endpoint that holds across
 * processes, the attempts' record and their retention. The endpoints themselves are
 * `WebhookEndpointStore`'s; a delivery is added only to an endpoint that exists, and a claim or an
 * attempt's outcome reads and sets the endpoint's health in the same step. No operation holds a
 * transaction across an HTTP call: a claim commits before the request, its outcome after. Every
 * read and change of an organization's rows filters by the organization.
 */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { StoredEvent } from "../../receivables/domain/Events.ts"
import type { OrgId } from "../../shared/domain/Ids.ts"
import type {
  AttemptTrigger,
  DeliveryStatus,
  DisabledReason,
  FirstTrigger,
  KeysetPage,
  SubscribableEventType,
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryId,
  WebhookEndpointId,
  WebhookEventType,
  WebhookOrganizationBusy
} from "../domain/Webhooks.ts"
import type { SealedSecrets } from "./WebhookEndpointStore.ts"

export interface DeliveryFilter {
  readonly status?: DeliveryStatus | undefined
  readonly eventType?: WebhookEventType | undefined
  /** Only deliveries whose id sorts before this (the last of the previous page): newest first. */
  readonly after?: string | undefined
  readonly limit: number
}

/** A delivery to make: its body is the event's wire form, as written once at fan-out. */
export interface NewDelivery {
  readonly id: WebhookDeliveryId
  readonly eventId: string
  readonly eventType: WebhookEventType
  readonly sequence: number | null
  readonly body: string
  readonly dueAt: DateTime.Utc
  /** What its first attempt will be recorded as having been made by. */
  readonly trigger: FirstTrigger
}

/** A delivery as its page shows it: its state, its attempts oldest first, and the body it is sent with. */
export interface DeliveryRecord {
  readonly delivery: WebhookDelivery
  readonly attempts: ReadonlyArray<WebhookAttempt>
  readonly body: string
}

/** A delivery a worker holds under its lease, with what it needs to send it. */
export interface ClaimedDelivery {
  readonly delivery: WebhookDelivery
  readonly orgId: OrgId
  readonly url: string
  readonly body: string
  readonly secrets: SealedSecrets
  /** What made the attempt it is claimed for. */
  readonly trigger: AttemptTrigger
  /** When the endpoint's current run of failures began; null when its last attempt succeeded. */
  readonly failingSince: DateTime.Utc | null
  /** The attempts the schedule made, the first included: the next delay follows these, never a manual retry. */
  readonly scheduledAttempts: number
  /**
   * For a manual retry, when the schedule's next attempt was due as the retry was asked for: a
   * failed manual retry leaves it there. Null when the schedule had none (the delivery had ended).
   */
  readonly resumeAt: DateTime.Utc | null
  /**
   * When the event's sync committed it to the feed, for the delivery's lag; null for a
   * `webhook.test`, which is in no feed, and once retention has removed the event's batch.
   */
  readonly eventCommittedAt: DateTime.Utc | null
}

/** A claim made as deliveries are added: by `owner` until `until`, within the endpoint's cap. */
export interface Lease {
  readonly owner: string
  readonly until: DateTime.Utc
  /** At most this many deliveries of the endpoint under live leases, these included. */
  readonly perEndpoint: number
}

export interface Claim {
  readonly owner: string
  readonly now: DateTime.Utc
  readonly leaseUntil: DateTime.Utc
  readonly limit: number
  /** At most this many deliveries of one endpoint under live leases, across every worker. */
  readonly perEndpoint: number
  /** At most this many deliveries of one organization held by this worker, `held` included. */
  readonly perOrganization: number
  /** The deliveries this worker holds per organization (claimed, not yet recorded). */
  readonly held: ReadonlyMap<OrgId, number>
}

/**
 * An organization's bounds on what waits for delivery: deliveries waiting (pending or in flight,
 * whatever made them), and replays in flight (a replay is in flight while a delivery it queued
 * waits for its first attempt).
 */
export interface WaitingBounds {
  readonly maxWaiting: number
  readonly maxReplays: number
}

/** What follows an attempt: the delivery's next state, and the endpoint's where it changes. */
export interface AttemptResult {
  readonly owner: string
  readonly orgId: OrgId
  readonly attempt: WebhookAttempt
  readonly next:
    | { readonly status: "succeeded" | "failed" }
    | { readonly status: "pending"; readonly dueAt: DateTime.Utc }
  /** The endpoint's health after the attempt: failing since when, or disabled now. */
  readonly endpoint:
    | { readonly health: "healthy" }
    | { readonly health: "failing" }
    | { readonly health: "disable"; readonly reason: DisabledReason }
}

/** An enabled endpoint whose cursor is behind its organization's feed. */
export interface BehindEndpoint {
  readonly orgId: OrgId
  readonly id: WebhookEndpointId
  /** The newest sequence fanned out to it. */
  readonly cursor: number
  readonly eventTypes: ReadonlyArray<SubscribableEventType>
}

export class WebhookDeliveryStore extends Context.Service<
  WebhookDeliveryStore,
  {
    /**
     * Adds deliveries to the endpoint (a replay), pending from their `dueAt`. With `bounds`, they
     * are counted against the organization's and added in one step (concurrent replays cannot
     * both pass): refused whole with `WebhookOrganizationBusy` when its deliveries waiting would
     * pass `maxWaiting` or it has `maxReplays` replays in flight.
     */
    readonly enqueue: (
      org: OrgId,
      id: WebhookEndpointId,
      deliveries: ReadonlyArray<NewDelivery>,
      options: { readonly at: DateTime.Utc; readonly bounds?: WaitingBounds | undefined }
    ) => Effect.Effect<ReadonlyArray<WebhookDelivery>, WebhookOrganizationBusy>
    /**
     * Refuses as `enqueue` would refuse `adding` deliveries, adding nothing: the early answer to a
     * replay, before it reads its window, so that a refusal costs the counts only. Not a
     * reservation: `enqueue` counts again in the step that adds.
     */
    readonly checkBounds: (
      org: OrgId,
      adding: number,
      bounds: WaitingBounds
    ) => Effect.Effect<void, WebhookOrganizationBusy>
    /**
     * Adds a delivery claimed by `lease.owner` as it is made (a test, attempted by the request that
     * asked for it), counted against the endpoint's cap as a worker's claim is: when the cap
     * leaves no room, nothing is added and the answer is `"busy"`; none when there is no such endpoint.
     */
    readonly enqueueClaimed: (
      org: OrgId,
      id: WebhookEndpointId,
      delivery: NewDelivery,
      options: { readonly at: DateTime.Utc; readonly lease: Lease }
    ) => Effect.Effect<Option.Option<WebhookDelivery> | "busy">
    /** The organization's events of `types` with `from <= created_at < until`, in sequence order, at most `limit`. */
    readonly eventsBetween: (
      org: OrgId,
      window: {
        readonly from: DateTime.Utc
        readonly until: DateTime.Utc
        readonly types: ReadonlyArray<SubscribableEventType>
        readonly limit: number
      }
    ) => Effect.Effect<ReadonlyArray<StoredEvent>>
    readonly deliveries: (
      org: OrgId,
      endpoint: WebhookEndpointId,
      filter: DeliveryFilter
    ) => Effect.Effect<KeysetPage<WebhookDelivery>>
    /**
     * The organization's delivery of that id, whichever its endpoint, with its attempts oldest
     * first and the body it is sent with (the event's wire form; no secret is in it).
     */
    readonly delivery: (org: OrgId, id: WebhookDeliveryId) => Effect.Effect<Option.Option<DeliveryRecord>>
    /**
     * Makes the delivery due at `at` whatever its status, unless an attempt of it is in flight;
     * its next attempt is a `manual_retry`, claimed with the schedule's next attempt as it stood
     * (`resumeAt`): asking again before it is made keeps the first one's.
     */
    readonly retry: (
      org: OrgId,
      id: WebhookDeliveryId,
      at: DateTime.Utc
    ) => Effect.Effect<Option.Option<WebhookDelivery>>
    /** Enabled endpoints behind their organization's feed, at most `limit`, the longest waiting first. */
    readonly behind: (limit: number) => Effect.Effect<ReadonlyArray<BehindEndpoint>>
    /**
     * Adds the deliveries of the events after the endpoint's cursor, through `to`, and moves the
     * cursor there, in one commit, if the cursor is still at `from` (another worker may have
     * fanned it out meanwhile: then nothing changes and the answer is false). The organization's
     * deliveries waiting stay within `maxWaiting`, counted in the same step: with room for fewer,
     * only the first that fit are added and the cursor moves to the last of them; with none, the
     * cursor stays (the endpoint goes to the back of `behind`) and the answer is false. Nothing is
     * dropped: the events wait in the feed until there is room.
     */
    readonly advance: (
      org: OrgId,
      id: WebhookEndpointId,
      move: { readonly from: number; readonly to: number; readonly at: DateTime.Utc; readonly maxWaiting: number },
      deliveries: ReadonlyArray<NewDelivery>
    ) => Effect.Effect<boolean>
    /**
     * Claims due deliveries of enabled endpoints, taking turns: the organizations in turn, and an
     * organization's endpoints in turn within it (each in the order its oldest due delivery came
     * due), so that one organization's backlog, however old or spread over however many endpoints,
     * holds back no other's. Per endpoint, due retries (of deliveries attempted
     * before) come before first attempts, so that a backlog of new events does not hold back the
     * schedule's next attempts; each kind in the order it came due, first attempts in sequence order.
     * An organization gets no more than `perOrganization` less what this worker `held` of it.
     */
    readonly claim: (claim: Claim) => Effect.Effect<ReadonlyArray<ClaimedDelivery>>
    /**
     * Records an attempt of a claimed delivery (a `manual_retry` counted apart from the schedule's
     * attempts); ignored when the lease was lost to another worker.
     * Answers whether this attempt disabled the endpoint (false when it was disabled already).
     */
    readonly complete: (result: AttemptResult) => Effect.Effect<{ readonly disabledEndpoint: boolean }>
    /**
     * Deliveries waiting across every organization (pending or in flight), counted up to `cap`:
     * the operators' gauge, read at each scrape, so its cost stays bounded however long the queue.
     */
    readonly waiting: (cap: number) => Effect.Effect<number>
    /**
     * Removes, with their attempts, finished deliveries created before `finishedBefore`, and
     * deliveries still waiting for a disabled endpoint created before `waitingBefore`; answers how many.
     */
    readonly prune: (before: {
      readonly finishedBefore: DateTime.Utc
      readonly waitingBefore: DateTime.Utc
    }) => Effect.Effect<number>
  }
>()("core/WebhookDeliveryStore") {}
