/**
 * Handlers of the webhooks group over the core `WebhookEndpoints` service, within the caller's
 * organization: another organization's id, like a malformed one, is 404. The secret reaches an
 * answer only from create and rotate, and nothing here logs it.
 */
import { DateTime, Effect, Option, Redacted } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../core/api/Api.ts"
import { InvalidRequest, RateLimited, ResourceMissing, ServiceUnavailable } from "../../../core/api/Errors.ts"
import { CurrentPrincipal } from "../../../core/api/Security.ts"
import type * as Wire from "../../../core/api/WebhooksApi.ts"
import {
  endpointLimitMessage,
  organizationBusyMessage,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookDeliveryNotFound,
  type WebhookEndpoint,
  type WebhookEndpointBusy,
  type WebhookEndpointDisabled,
  type WebhookEndpointLimitReached,
  type WebhookEndpointNotFound,
  type WebhookEndpointRejected,
  type WebhookOrganizationBusy,
  type WebhookReplayRejected,
  type WebhookUrlRejected
} from "../../../core/webhooks/domain/Webhooks.ts"
import { WebhookEndpoints } from "../../../core/webhooks/services/WebhookEndpoints.ts"

const iso = (instant: DateTime.Utc | null) => (instant === null ? null : DateTime.formatIso(instant))

export const endpointWire = (endpoint: WebhookEndpoint): Wire.WebhookEndpoint => ({
  id: endpoint.id,
  object: "webhook_endpoint",
  url: endpoint.url,
  description: endpoint.description,
  event_types: endpoint.eventTypes,
  enabled: endpoint.enabled,
  disabled_reason: endpoint.disabledReason,
  previous_secret_expires_at: iso(endpoint.previousSecretExpiresAt),
  created_at: DateTime.formatIso(endpoint.createdAt),
  updated_at: DateTime.formatIso(endpoint.updatedAt)
})

const withSecret = (created: { readonly endpoint: WebhookEndpoint; readonly secret: Redacted.Redacted<string> }) => ({
  ...endpointWire(created.endpoint),
  secret: Redacted.value(created.secret)
})

export const deliveryWire = (delivery: WebhookDelivery) => ({
  id: delivery.id,
  object: "webhook_delivery" as const,
  webhook_endpoint_id: delivery.endpointId,
  event_id: delivery.eventId,
  event_type: delivery.eventType,
  sequence: delivery.sequence,
  status: delivery.status,
  attempt_count: delivery.attempts,
  next_attempt_at: iso(delivery.nextAttemptAt),
  last_attempt_at: iso(delivery.lastAttemptAt),
  created_at: DateTime.formatIso(delivery.createdAt)
})

export const attemptWire = (attempt: WebhookAttempt) => ({
  id: attempt.id,
  trigger: attempt.trigger,
  attempted_at: DateTime.formatIso(attempt.startedAt),
  outcome: attempt.outcome,
  status_code: attempt.responseStatus,
  error: attempt.error,
  duration_ms: attempt.durationMs,
  response_body: attempt.responseBody
})

const withAttempts = (delivery: WebhookDelivery, attempts: ReadonlyArray<WebhookAttempt>) => ({
  ...deliveryWire(delivery),
  attempts: attempts.map(attemptWire)
})

const json = (body: unknown) => HttpServerResponse.jsonUnsafe(body)

const notFound = (kind: "webhook endpoint" | "webhook delivery", id: string) =>
  new ResourceMissing({
    error: {
      type: "invalid_request_error",
      code: "resource_missing",
      message: `No such ${kind}: "${id}".`,
      param: "id"
    }
  })

type Refusal =
  | WebhookEndpointNotFound
  | WebhookDeliveryNotFound
  | WebhookUrlRejected
  | WebhookEndpointRejected
  | WebhookEndpointDisabled
  | WebhookReplayRejected

/** A field of the request the service refused: 400 naming it. */
const invalidInput = (refusal: WebhookUrlRejected | WebhookEndpointRejected): InvalidRequest =>
  refusal._tag === "WebhookUrlRejected"
    ? InvalidRequest.parameterInvalid("url", `Invalid value for "url": ${refusal.message}.`)
    : InvalidRequest.parameterInvalid(refusal.field, `Invalid value for "${refusal.field}": ${refusal.message}.`)

/**
 * The organization has as many endpoints as it may: 400, not 429, since waiting frees nothing;
 * no `param`, since no field of the request is at fault.
 */
const endpointLimit = (refusal: WebhookEndpointLimitReached): InvalidRequest =>
  new InvalidRequest({
    error: { type: "invalid_request_error", code: "parameter_invalid", message: endpointLimitMessage(refusal) }
  })

/** The documented answer to each refusal of the service. */
const answerTo = (refusal: Refusal): InvalidRequest | ResourceMissing => {
  switch (refusal._tag) {
    case "WebhookEndpointNotFound":
      return notFound("webhook endpoint", refusal.id)
    case "WebhookDeliveryNotFound":
      return notFound("webhook delivery", refusal.id)
    case "WebhookUrlRejected":
    case "WebhookEndpointRejected":
      return invalidInput(refusal)
    case "WebhookEndpointDisabled":
      return InvalidRequest.parameterInvalid("id", "The webhook endpoint is disabled: enable it before sending to it.")
    case "WebhookReplayRejected":
      return InvalidRequest.parameterInvalid("since", `Invalid replay window: ${refusal.message}.`)
  }
}

const answered = Effect.mapError(answerTo)

// The endpoint's attempts in flight may end within seconds; a test waits at most its timeout.
const busyRetryAfterSeconds = 5

/** A test the endpoint's cap leaves no room for: 503, to be tried again shortly. */
const busy = (refusal: WebhookEndpointBusy) =>
  HttpServerResponse.setHeader(
    json({ error: ServiceUnavailable.endpointBusy(refusal.id).error }).pipe(HttpServerResponse.setStatus(503)),
    "retry-after",
    String(busyRetryAfterSeconds)
  )

// Deliveries and replays of an organization end within minutes at the workers' pace.
const organizationBusyRetryAfterSeconds = 60

/**
 * A replay past the organization's deliveries waiting or replays in flight: 429, since both free
 * as its deliveries are made; `Retry-After` says when to look again, the message what to do.
 */
const organizationBusy = (refusal: WebhookOrganizationBusy) =>
  HttpServerResponse.setHeader(
    json({
      error: new RateLimited({
        error: { type: "rate_limit_error", code: "rate_limited", message: organizationBusyMessage(refusal) }
      }).error
    }).pipe(HttpServerResponse.setStatus(429)),
    "retry-after",
    String(organizationBusyRetryAfterSeconds)
  )

const instant = (field: string, text: string) =>
  Option.match(DateTime.make(text), {
    onNone: () =>
      Effect.fail(
        InvalidRequest.parameterInvalid(field, `Invalid value for "${field}": expected an ISO 8601 date-time.`)
      ),
    onSome: (value) => Effect.succeed(DateTime.toUtc(value))
  })

export const layer = HttpApiBuilder.group(
  Api,
  "webhooks",
  Effect.fn(function* (handlers) {
    const webhooks = yield* WebhookEndpoints
    const org = Effect.map(CurrentPrincipal, (principal) => principal.orgId)

    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          const created = yield* webhooks
            .create(yield* org, {
              url: payload.url,
              eventTypes: payload.event_types,
              description: payload.description
            })
            .pipe(
              Effect.mapError((refusal) =>
                refusal._tag === "WebhookEndpointLimitReached" ? endpointLimit(refusal) : invalidInput(refusal)
              )
            )
          return json(withSecret(created))
        })
      )
      .handle("list", ({ query }) =>
        Effect.gen(function* () {
          const page = yield* webhooks.list(yield* org, { after: query.starting_after, limit: query.limit })
          return json({ object: "list", data: page.items.map(endpointWire), has_more: page.hasMore })
        })
      )
      .handle("get", ({ params }) =>
        Effect.gen(function* () {
          const endpoint = yield* webhooks.get(yield* org, params.id).pipe(answered)
          return json(endpointWire(endpoint))
        })
      )
      .handle("update", ({ params, payload }) =>
        Effect.gen(function* () {
          const endpoint = yield* webhooks
            .update(yield* org, params.id, {
              url: payload.url,
              eventTypes: payload.event_types,
              description: payload.description,
              enabled: payload.enabled
            })
            .pipe(answered)
          return json(endpointWire(endpoint))
        })
      )
      .handle("delete", ({ params }) =>
        Effect.gen(function* () {
          const endpoint = yield* webhooks.get(yield* org, params.id).pipe(answered)
          yield* webhooks.remove(yield* org, endpoint.id).pipe(answered)
          return json({ id: endpoint.id, object: "webhook_endpoint", deleted: true })
        })
      )
      .handle("rotateSecret", ({ params }) =>
        Effect.gen(function* () {
          const rotated = yield* webhooks.rotateSecret(yield* org, params.id).pipe(answered)
          return json(withSecret(rotated))
        })
      )
      .handle("test", ({ params }) =>
        Effect.gen(function* () {
          return yield* webhooks.test(yield* org, params.id).pipe(
            Effect.map(({ delivery, attempt }) => json(withAttempts(delivery, [attempt]))),
            Effect.catchTag("WebhookEndpointBusy", (refusal) => Effect.succeed(busy(refusal))),
            answered
          )
        })
      )
      .handle("replay", ({ params, payload }) =>
        Effect.gen(function* () {
          const since = yield* instant("since", payload.since)
          const until = payload.until === undefined ? undefined : yield* instant("until", payload.until)
          return yield* webhooks.replay(yield* org, params.id, { since, until }).pipe(
            Effect.map(({ queued }) => json({ object: "webhook_replay", queued })),
            Effect.catchTag("WebhookOrganizationBusy", (refusal) => Effect.succeed(organizationBusy(refusal))),
            answered
          )
        })
      )
      .handle("deliveries", ({ params, query }) =>
        Effect.gen(function* () {
          const page = yield* webhooks
            .deliveries(yield* org, params.id, {
              status: query.status,
              eventType: query.event_type,
              after: query.starting_after,
              limit: query.limit
            })
            .pipe(answered)
          return json({ object: "list", data: page.items.map(deliveryWire), has_more: page.hasMore })
        })
      )
      .handle("delivery", ({ params }) =>
        Effect.gen(function* () {
          const { delivery, attempts } = yield* webhooks.delivery(yield* org, params.id).pipe(answered)
          return json(withAttempts(delivery, attempts))
        })
      )
      .handle("retry", ({ params }) =>
        Effect.gen(function* () {
          const delivery = yield* webhooks.retry(yield* org, params.id).pipe(answered)
          return json(deliveryWire(delivery))
        })
      )
  })
)
