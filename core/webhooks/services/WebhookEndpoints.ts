/**
 * Webhook endpoints as the API manages them: create (the secret is answered once), list, get,
 * update, remove, rotate the secret (the old one signs for 24 h more), send a `webhook.test`
 * through the real delivery path, replay a window of the feed, and read and retry deliveries.
 * Every operation takes the organization first and every query filters by it: another tenant's
 * id, like a malformed one, is "not found". Secrets are sealed before storage and never logged.
 * Depends on `effect` and core only.
 */
import { Config, Context, DateTime, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { eventTypes } from "../../receivables/domain/Events.ts"
import { retentionDays } from "../../receivables/services/Feed.ts"
import type { OrgId } from "../../shared/domain/Ids.ts"
import { deliveryId, endpointId, secretBytes, secretFromBytes, testEventId } from "../domain/WebhookSigning.ts"
import {
  type WebhookDelivery as Delivery,
  type DeliveryStatus,
  type KeysetPage,
  type SubscribableEventType,
  type WebhookAttempt,
  WebhookDeliveryId,
  WebhookDeliveryNotFound,
  type WebhookEndpoint,
  WebhookEndpointBusy,
  WebhookEndpointDisabled,
  WebhookEndpointId,
  type WebhookEndpointLimitReached,
  WebhookEndpointNotFound,
  WebhookEndpointRejected,
  type WebhookEventType,
  type WebhookOrganizationBusy,
  WebhookReplayRejected,
  type WebhookUrlRejected
} from "../domain/Webhooks.ts"
import { WebhookCrypto } from "../ports/WebhookCrypto.ts"
import { type DeliveryRecord, WebhookDeliveryStore } from "../ports/WebhookDeliveryStore.ts"
import { type EndpointChange, WebhookEndpointStore } from "../ports/WebhookEndpointStore.ts"
import { WebhookSender } from "../ports/WebhookSender.ts"
import { deliveryOf, endpointConcurrency, maxWaitingPerOrganization, WebhookDelivery } from "./WebhookDelivery.ts"

export interface EndpointInput {
  readonly url: string
  /** Absent: every type of the feed. */
  readonly eventTypes?: ReadonlyArray<SubscribableEventType> | undefined
  readonly description?: string | null | undefined
  /** Absent: enabled. */
  readonly enabled?: boolean | undefined
}

/** What an update changes; an absent field stays as it is. */
export interface EndpointPatch {
  readonly url?: string | undefined
  readonly eventTypes?: ReadonlyArray<SubscribableEventType> | undefined
  readonly description?: string | null | undefined
  readonly enabled?: boolean | undefined
}

export interface CreatedEndpoint {
  readonly endpoint: WebhookEndpoint
  /** Shown once: only its sealed form is stored. */
  readonly secret: Redacted.Redacted<string>
}

export interface DeliveryQuery {
  readonly status?: DeliveryStatus | undefined
  readonly eventType?: WebhookEventType | undefined
  /** The last delivery of the previous page: newest first. */
  readonly after?: string | undefined
  readonly limit: number
}

/**
 * The most endpoints one organization may have: each is a fan-out cursor and a share of the
 * delivery workers, so one organization's many endpoints would otherwise crowd out the others'.
 */
export const maxEndpointsPerOrganization = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 10_000 })),
  "WEBHOOK_MAX_ENDPOINTS_PER_ORG"
).pipe(Config.withDefault(20))

/** An organization's replays in flight: each is a burst of deliveries queued at once. */
export const maxReplaysPerOrganization = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1_000 })),
  "WEBHOOK_MAX_REPLAYS_PER_ORG"
).pipe(Config.withDefault(4))

/** The most events one replay re-sends: a wider window is asked for in parts. */
export const maxReplayEvents = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 100_000 })),
  "WEBHOOK_MAX_REPLAY_EVENTS"
).pipe(Config.withDefault(10_000))

/** How long a rotated-out secret keeps signing beside the new one. */
export const rotationOverlap = Duration.hours(24)
const descriptionMaximum = 500

const descriptionProblem = (description: string): string | undefined => {
  if (Array.from(description).length > descriptionMaximum)
    return `a description has at most ${descriptionMaximum} characters`
  if (/\p{Cc}/u.test(description)) return "a description has no control characters"
  return undefined
}

export class WebhookEndpoints extends Context.Service<
  WebhookEndpoints,
  {
    readonly create: (
      org: OrgId,
      input: EndpointInput
    ) => Effect.Effect<CreatedEndpoint, WebhookUrlRejected | WebhookEndpointRejected | WebhookEndpointLimitReached>
    /** The organization's endpoints, oldest first, after the endpoint `after` names. */
    readonly list: (
      org: OrgId,
      page: { readonly after?: string | undefined; readonly limit: number }
    ) => Effect.Effect<KeysetPage<WebhookEndpoint>>
    readonly get: (org: OrgId, id: string) => Effect.Effect<WebhookEndpoint, WebhookEndpointNotFound>
    readonly update: (
      org: OrgId,
      id: string,
      patch: EndpointPatch
    ) => Effect.Effect<WebhookEndpoint, WebhookEndpointNotFound | WebhookUrlRejected | WebhookEndpointRejected>
    /** Removes the endpoint with its deliveries; nothing more is sent to it. */
    readonly remove: (org: OrgId, id: string) => Effect.Effect<void, WebhookEndpointNotFound>
    /** A new secret, shown once; the previous one keeps signing for `rotationOverlap`. */
    readonly rotateSecret: (org: OrgId, id: string) => Effect.Effect<CreatedEndpoint, WebhookEndpointNotFound>
    /**
     * Sends `webhook.test` now through the delivery path and answers its attempt. It counts against
     * the endpoint's cap of attempts in flight; with no room, it is not sent (`WebhookEndpointBusy`).
     */
    readonly test: (
      org: OrgId,
      id: string
    ) => Effect.Effect<
      { readonly delivery: Delivery; readonly attempt: WebhookAttempt },
      WebhookEndpointNotFound | WebhookEndpointDisabled | WebhookEndpointBusy
    >
    /**
     * Re-sends the endpoint's events created in `[since, until)` in sequence order; answers how
     * many. A window of more than `WEBHOOK_MAX_REPLAY_EVENTS` is refused (`WebhookReplayRejected`),
     * and so is a replay past the organization's deliveries waiting or replays in flight
     * (`WebhookOrganizationBusy`), counted and queued in one step.
     */
    readonly replay: (
      org: OrgId,
      id: string,
      window: { readonly since: DateTime.Utc; readonly until?: DateTime.Utc | undefined }
    ) => Effect.Effect<
      { readonly queued: number },
      WebhookEndpointNotFound | WebhookReplayRejected | WebhookOrganizationBusy
    >
    readonly deliveries: (
      org: OrgId,
      endpoint: string,
      query: DeliveryQuery
    ) => Effect.Effect<KeysetPage<Delivery>, WebhookEndpointNotFound>
    /** The organization's delivery of that id, with its attempts oldest first and the body it is sent with. */
    readonly delivery: (org: OrgId, id: string) => Effect.Effect<DeliveryRecord, WebhookDeliveryNotFound>
    /** Makes the delivery due now, whatever its status; an attempt in flight is left to finish. */
    readonly retry: (
      org: OrgId,
      id: string
    ) => Effect.Effect<Delivery, WebhookDeliveryNotFound | WebhookEndpointDisabled>
  }
>()("core/WebhookEndpoints") {
  static readonly layer = Layer.effect(
    WebhookEndpoints,
    Effect.gen(function* () {
      const endpointStore = yield* WebhookEndpointStore
      const deliveryStore = yield* WebhookDeliveryStore
      const crypto = yield* WebhookCrypto
      const sender = yield* WebhookSender
      const worker = yield* WebhookDelivery
      const retention = Duration.days(yield* retentionDays)
      const perEndpoint = yield* endpointConcurrency
      const maxPerOrganization = yield* maxEndpointsPerOrganization
      const bounds = {
        maxWaiting: yield* maxWaitingPerOrganization,
        maxReplays: yield* maxReplaysPerOrganization
      }
      const replayMaximum = yield* maxReplayEvents

      const own = (org: OrgId, id: string) =>
        Effect.gen(function* () {
          const parsed = WebhookEndpointId.makeOption(id)
          const found = Option.isNone(parsed) ? Option.none() : yield* endpointStore.find(org, parsed.value)
          if (Option.isNone(found)) return yield* new WebhookEndpointNotFound({ id })
          return found.value
        })

      const validTypes = (types: ReadonlyArray<SubscribableEventType> | undefined) =>
        Effect.gen(function* () {
          if (types === undefined) return undefined
          const distinct = [...new Set(types)]
          if (distinct.length === 0) {
            return yield* new WebhookEndpointRejected({ field: "event_types", message: "name at least one event type" })
          }
          return distinct
        })

      const validDescription = (description: string | null | undefined) =>
        Effect.gen(function* () {
          if (description === undefined || description === null) return description
          const problem = descriptionProblem(description)
          if (problem !== undefined)
            return yield* new WebhookEndpointRejected({ field: "description", message: problem })
          return description
        })

      const newSecret = Effect.gen(function* () {
        const secret = Redacted.make(secretFromBytes(crypto.randomBytes(secretBytes)))
        return { secret, sealed: yield* crypto.seal(secret) }
      })

      const create = Effect.fn("WebhookEndpoints.create")(function* (org: OrgId, input: EndpointInput) {
        yield* sender.check(input.url)
        const types = (yield* validTypes(input.eventTypes)) ?? [...eventTypes]
        const description = (yield* validDescription(input.description)) ?? null
        const { secret, sealed } = yield* newSecret
        const at = yield* DateTime.now
        const endpoint = yield* endpointStore.create({
          id: endpointId(crypto.randomBytes(16), DateTime.toEpochMillis(at)),
          orgId: org,
          url: input.url,
          description,
          eventTypes: types,
          enabled: input.enabled ?? true,
          sealedSecret: sealed,
          at,
          maxPerOrganization
        })
        return { endpoint, secret }
      })

      const list = Effect.fn("WebhookEndpoints.list")(function* (
        org: OrgId,
        page: { readonly after?: string | undefined; readonly limit: number }
      ) {
        return yield* endpointStore.list(org, page)
      })

      const get = Effect.fn("WebhookEndpoints.get")(function* (org: OrgId, id: string) {
        return yield* own(org, id)
      })

      const update = Effect.fn("WebhookEndpoints.update")(function* (org: OrgId, id: string, patch: EndpointPatch) {
        const endpoint = yield* own(org, id)
        if (patch.url !== undefined) yield* sender.check(patch.url)
        const change: EndpointChange = {
          url: patch.url,
          eventTypes: yield* validTypes(patch.eventTypes),
          description: yield* validDescription(patch.description),
          enabled:
            patch.enabled === undefined || patch.enabled === endpoint.enabled
              ? undefined
              : patch.enabled
                ? { enabled: true }
                : { enabled: false, reason: "manual" }
        }
        const updated = yield* endpointStore.update(org, endpoint.id, change, yield* DateTime.now)
        if (Option.isNone(updated)) return yield* new WebhookEndpointNotFound({ id })
        return updated.value
      })

      const remove = Effect.fn("WebhookEndpoints.remove")(function* (org: OrgId, id: string) {
        const endpoint = yield* own(org, id)
        if (!(yield* endpointStore.remove(org, endpoint.id))) return yield* new WebhookEndpointNotFound({ id })
      })

      const rotateSecret = Effect.fn("WebhookEndpoints.rotateSecret")(function* (org: OrgId, id: string) {
        const endpoint = yield* own(org, id)
        const { secret, sealed } = yield* newSecret
        const at = yield* DateTime.now
        const rotated = yield* endpointStore.rotate(
          org,
          endpoint.id,
          sealed,
          DateTime.addDuration(at, rotationOverlap),
          at
        )
        if (Option.isNone(rotated)) return yield* new WebhookEndpointNotFound({ id })
        return { endpoint: rotated.value, secret }
      })

      const test = Effect.fn("WebhookEndpoints.test")(function* (org: OrgId, id: string) {
        const endpoint = yield* own(org, id)
        if (!endpoint.enabled) return yield* new WebhookEndpointDisabled({ id })
        const at = yield* DateTime.now
        const eventId = testEventId(crypto.randomBytes(16))
        const body = JSON.stringify({
          id: eventId,
          object: "event",
          type: "webhook.test",
          created_at: DateTime.formatIso(at),
          data: { webhook_endpoint_id: endpoint.id }
        })
        // The test is claimed by this request as it is made, so that no worker sends it too.
        const owner = `test:${eventId}`
        const enqueued = yield* deliveryStore.enqueueClaimed(
          org,
          endpoint.id,
          {
            id: deliveryId(crypto.randomBytes(16), DateTime.toEpochMillis(at)),
            eventId,
            eventType: "webhook.test",
            sequence: null,
            body,
            dueAt: at,
            trigger: "test"
          },
          { at, lease: { owner, until: DateTime.addDuration(at, Duration.minutes(1)), perEndpoint } }
        )
        if (enqueued === "busy") return yield* new WebhookEndpointBusy({ id: endpoint.id })
        const secrets = yield* endpointStore.secrets(org, endpoint.id)
        if (Option.isNone(enqueued) || Option.isNone(secrets)) return yield* new WebhookEndpointNotFound({ id })
        const delivery = enqueued.value
        const attempt = yield* worker.attempt(
          {
            delivery,
            orgId: org,
            url: endpoint.url,
            body,
            secrets: secrets.value,
            trigger: "test",
            failingSince: null,
            scheduledAttempts: 0,
            eventCommittedAt: null,
            resumeAt: null
          },
          owner
        )
        const recorded = yield* deliveryStore.delivery(org, delivery.id)
        return { delivery: Option.match(recorded, { onNone: () => delivery, onSome: (r) => r.delivery }), attempt }
      })

      const replay = Effect.fn("WebhookEndpoints.replay")(function* (
        org: OrgId,
        id: string,
        window: { readonly since: DateTime.Utc; readonly until?: DateTime.Utc | undefined }
      ) {
        const endpoint = yield* own(org, id)
        const now = yield* DateTime.now
        const until = window.until ?? now
        if (!DateTime.isLessThan(window.since, until)) {
          return yield* new WebhookReplayRejected({ message: "since must be before until", oldestAvailable: null })
        }
        const oldest = DateTime.subtractDuration(now, retention)
        if (DateTime.isLessThan(window.since, oldest)) {
          return yield* new WebhookReplayRejected({
            message: "since is before the oldest event kept by the events' retention",
            oldestAvailable: DateTime.formatIso(oldest)
          })
        }
        // Refused early, before the window is read: a flood of refused replays costs the counts.
        yield* deliveryStore.checkBounds(org, 1, bounds)
        const events = yield* deliveryStore.eventsBetween(org, {
          from: window.since,
          until,
          types: endpoint.eventTypes,
          limit: replayMaximum + 1
        })
        if (events.length > replayMaximum) {
          return yield* new WebhookReplayRejected({
            message: `the window holds more than ${replayMaximum} events: replay it in parts`,
            oldestAvailable: null
          })
        }
        yield* deliveryStore.enqueue(
          org,
          endpoint.id,
          events.map((event) =>
            deliveryOf(event, deliveryId(crypto.randomBytes(16), DateTime.toEpochMillis(now)), now, "replay")
          ),
          { at: now, bounds }
        )
        return { queued: events.length }
      })

      const deliveries = Effect.fn("WebhookEndpoints.deliveries")(function* (
        org: OrgId,
        endpointId: string,
        query: DeliveryQuery
      ) {
        const endpoint = yield* own(org, endpointId)
        return yield* deliveryStore.deliveries(org, endpoint.id, query)
      })

      const delivery = Effect.fn("WebhookEndpoints.delivery")(function* (org: OrgId, id: string) {
        const parsed = WebhookDeliveryId.makeOption(id)
        const found = Option.isNone(parsed) ? Option.none() : yield* deliveryStore.delivery(org, parsed.value)
        if (Option.isNone(found)) return yield* new WebhookDeliveryNotFound({ id })
        return found.value
      })

      const retry = Effect.fn("WebhookEndpoints.retry")(function* (org: OrgId, id: string) {
        const found = yield* delivery(org, id)
        const endpoint = yield* endpointStore.find(org, found.delivery.endpointId)
        // Removed meanwhile, its deliveries went with it.
        if (Option.isNone(endpoint)) return yield* new WebhookDeliveryNotFound({ id })
        if (!endpoint.value.enabled) return yield* new WebhookEndpointDisabled({ id: endpoint.value.id })
        const retried = yield* deliveryStore.retry(org, found.delivery.id, yield* DateTime.now)
        if (Option.isNone(retried)) return yield* new WebhookDeliveryNotFound({ id })
        return retried.value
      })

      return WebhookEndpoints.of({
        create,
        list,
        get,
        update,
        remove,
        rotateSecret,
        test,
        replay,
        deliveries,
        delivery,
        retry
      })
    })
  )
}
