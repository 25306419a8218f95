/**
 * The webhooks' part of the contract: endpoints an organization registers (`/v1/webhook_endpoints`)
 * and the deliveries to them (`/v1/webhook_deliveries`). Every endpoint of the group needs a key
 * with the `webhooks` permission (`WebhooksPermission`): a read-only key gets 403. A secret is in
 * the answers to create and rotate only. Wire shapes only; the domain is `core/webhooks/domain/Webhooks.ts`.
 */
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import {
  AttemptTrigger,
  DeliveryStatus,
  DisabledReason,
  SubscribableEventType,
  WebhookDeliveryId,
  WebhookEndpointId,
  WebhookEventType,
  webhookUrlMaximum
} from "../webhooks/domain/Webhooks.ts"
import {
  InvalidRequest,
  PermissionDenied,
  RequestTimeout,
  ResourceMissing,
  ServiceUnavailable,
  UnsupportedMediaType
} from "./Errors.ts"
import { Limit } from "./Query.ts"
import type { CurrentPrincipal } from "./Security.ts"

/** Refuses a key without the `webhooks` permission with 403; runs once the key is accepted. */
export class WebhooksPermission extends HttpApiMiddleware.Service<
  WebhooksPermission,
  { provides: never; requires: CurrentPrincipal }
>()("core/api/WebhooksPermission", { error: [PermissionDenied] }) {}

/**
 * Reads the body of an endpoint that takes one, once the key is permitted, before it is decoded:
 * JSON only (415), within a bound of size (400 past it), in UTF-8 (400 otherwise), arrived before
 * the request deadline (408, answered by the pipeline when the deadline passes).
 */
export class WebhooksBody extends HttpApiMiddleware.Service<WebhooksBody>()("core/api/WebhooksBody", {
  error: [InvalidRequest, UnsupportedMediaType, RequestTimeout]
}) {}

const Instant = Schema.String.annotate({ description: "ISO 8601 timestamp (UTC)", format: "date-time" })

const EventTypes = Schema.Array(SubscribableEventType).check(Schema.isMinLength(1))

export const WebhookEndpoint = Schema.Struct({
  id: Schema.String.annotate({ description: "Webhook endpoint identifier: we_ and 32 hex characters" }),
  object: Schema.Literal("webhook_endpoint"),
  url: Schema.String.annotate({ description: "Where events are sent: an https URL" }),
  description: Schema.NullOr(Schema.String),
  event_types: EventTypes.annotate({ description: "The event types sent to it; `webhook.test` always is" }),
  enabled: Schema.Boolean,
  disabled_reason: Schema.NullOr(DisabledReason).annotate({
    description:
      "Why it receives nothing: `manual` (disabled through the API), `failing` (failing for 5 days) or `gone` (it answered 410); null while enabled. Its deliveries wait until it is enabled again."
  }),
  previous_secret_expires_at: Schema.NullOr(Instant).annotate({
    description: "Until then, after a rotation, the previous secret signs every webhook too"
  }),
  created_at: Instant,
  updated_at: Instant
}).annotate({ identifier: "WebhookEndpoint" })
export type WebhookEndpoint = typeof WebhookEndpoint.Type

export const WebhookEndpointWithSecret = Schema.Struct({
  ...WebhookEndpoint.fields,
  secret: Schema.String.annotate({
    description:
      "The signing secret (`whsec_` and base64), shown in this answer only: store it now. Verify each webhook with it (Standard Webhooks)."
  })
}).annotate({ identifier: "WebhookEndpointWithSecret" })

export const WebhookAttempt = Schema.Struct({
  id: Schema.String,
  trigger: AttemptTrigger.annotate({
    description:
      "What made the attempt: the delivery's first (`scheduled`), the schedule's next after a failure (`retry`), a retry you asked for (`manual_retry`), the first of a replayed event (`replay`), or a test (`test`). Attempts made before the trigger was kept read `scheduled`."
  }),
  attempted_at: Instant,
  outcome: Schema.Literals(["succeeded", "http_error", "timeout", "connection_failed", "blocked"]).annotate({
    description:
      "How it ended: answered 2xx in time, answered otherwise, no answer within the timeout, no connection, or an address the service does not send to"
  }),
  status_code: Schema.NullOr(Schema.Int).annotate({ description: "The answer's status; null without an answer" }),
  error: Schema.NullOr(Schema.String).annotate({ description: "What went wrong; null on success" }),
  duration_ms: Schema.Finite,
  response_body: Schema.NullOr(Schema.String).annotate({
    description: "The start of the answer's body: at most 200 characters, without controls, secrets redacted"
  })
}).annotate({ identifier: "WebhookAttempt" })

export const WebhookDelivery = Schema.Struct({
  id: Schema.String.annotate({ description: "Webhook delivery identifier: wd_ and 32 hex characters" }),
  object: Schema.Literal("webhook_delivery"),
  webhook_endpoint_id: Schema.String,
  event_id: Schema.String.annotate({ description: "The event sent, also its `webhook-id` header" }),
  event_type: WebhookEventType,
  sequence: Schema.NullOr(Schema.Int).annotate({ description: "The event's place in the feed; null for a test" }),
  status: DeliveryStatus,
  attempt_count: Schema.Int,
  next_attempt_at: Schema.NullOr(Instant),
  last_attempt_at: Schema.NullOr(Instant),
  created_at: Instant
}).annotate({ identifier: "WebhookDelivery" })

export const WebhookDeliveryWithAttempts = Schema.Struct({
  ...WebhookDelivery.fields,
  attempts: Schema.Array(WebhookAttempt).annotate({ description: "Oldest first" })
}).annotate({ identifier: "WebhookDeliveryWithAttempts" })

const listOf = <S extends Schema.Top>(item: S, identifier: string) =>
  Schema.Struct({
    object: Schema.Literal("list"),
    data: Schema.Array(item),
    has_more: Schema.Boolean.annotate({ description: "More follow: pass the last item's id as `starting_after`" })
  }).annotate({ identifier })

const optional = <S extends Schema.Top>(schema: S, description: string) =>
  Schema.optionalKey(schema).annotateKey({ description })

// Annotated before the check, so that the description and format reach the document (an
// annotation after it would sit on the filter). The service checks the rest: the scheme, no
// credentials, an address it may send to.
const urlRules = `an absolute https URL of at most ${webhookUrlMaximum} characters, without credentials (http only to a host the service's operator allows)`
const UrlField = Schema.String.annotate({
  description: `Where the events are sent: ${urlRules}`,
  format: "uri"
}).check(Schema.isMaxLength(webhookUrlMaximum))
const DescriptionField = Schema.NullOr(Schema.String)

export const CreateEndpoint = Schema.Struct({
  url: UrlField,
  event_types: EventTypes.annotate({ description: "The feed's event types to send, at least one" }),
  description: optional(DescriptionField, "Something to recognise it by: up to 500 characters, no control characters")
}).annotate({ identifier: "WebhookEndpointCreate" })

export const UpdateEndpoint = Schema.Struct({
  url: optional(UrlField, `A new URL: ${urlRules}`),
  event_types: optional(EventTypes, "The event types to send from now on"),
  description: optional(DescriptionField, "A new description, up to 500 characters; null removes it"),
  enabled: optional(Schema.Boolean, "false stops sending (deliveries wait); true resumes")
}).annotate({ identifier: "WebhookEndpointUpdate" })

export const Replay = Schema.Struct({
  since: Instant.annotate({
    description:
      "Re-send the events created from this instant on: before `until`, and no earlier than the events' retention reaches (30 days ago by default; the operator may keep events longer). A window holding more events than one replay sends is refused: replay it in parts."
  }),
  until: optional(Instant, "Up to this instant, excluded; now when omitted")
}).annotate({ identifier: "WebhookReplay" })

const EndpointIdParam = {
  id: Schema.String.annotate({ description: "Webhook endpoint identifier: we_ and 32 hex characters" })
}
const DeliveryIdParam = {
  id: Schema.String.annotate({ description: "Webhook delivery identifier: wd_ and 32 hex characters" })
}
// A cursor that is not an id of the kind is refused (400), never read as "nothing after it": a
// pager with a broken cursor must not believe it is done. A well-formed id is a position in the
// list's order, whether or not it is (still) one of yours: an endpoint deleted between two pages
// does not end the paging, and the page holds your items only.
const StartingAfter = (id: typeof WebhookEndpointId | typeof WebhookDeliveryId, what: string, expected: string) =>
  optional(
    id.annotate({ expected }),
    `Keyset paging: continue after this ${what} (the \`id\` of the last item you received). Any well-formed id is a place in the list's order; anything else is a 400.`
  )

const summary = (summary: string, description: string) => OpenApi.annotations({ summary, description })

export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/webhook_endpoints", {
      payload: CreateEndpoint,
      success: WebhookEndpointWithSecret,
      error: InvalidRequest
    })
      .middleware(WebhooksBody)
      .annotateMerge(
        summary(
          "Create a webhook endpoint",
          "Registers a URL to receive your organization's events as they are committed. The answer carries the endpoint's signing `secret`, the only time it is shown. An organization has at most 20 endpoints by default (the operator may set another bound): past it, the answer is 400 `parameter_invalid` until one is deleted."
        )
      ),
    HttpApiEndpoint.get("list", "/webhook_endpoints", {
      query: {
        starting_after: StartingAfter(
          WebhookEndpointId,
          "endpoint",
          "a webhook endpoint id: we_ and 32 lower-case hexadecimal characters"
        ),
        limit: Limit
      },
      success: listOf(WebhookEndpoint, "WebhookEndpointList")
    }).annotateMerge(summary("List webhook endpoints", "Oldest first; never with their secrets.")),
    HttpApiEndpoint.get("get", "/webhook_endpoints/:id", {
      params: EndpointIdParam,
      success: WebhookEndpoint,
      error: ResourceMissing
    }).annotateMerge(summary("Get a webhook endpoint", "Without its secret.")),
    HttpApiEndpoint.patch("update", "/webhook_endpoints/:id", {
      params: EndpointIdParam,
      payload: UpdateEndpoint,
      success: WebhookEndpoint,
      error: [InvalidRequest, ResourceMissing]
    })
      .middleware(WebhooksBody)
      .annotateMerge(summary("Update a webhook endpoint", "Only the fields given change.")),
    HttpApiEndpoint.delete("delete", "/webhook_endpoints/:id", {
      params: EndpointIdParam,
      success: Schema.Struct({
        id: Schema.String,
        object: Schema.Literal("webhook_endpoint"),
        deleted: Schema.Literal(true)
      }).annotate({ identifier: "WebhookEndpointDeleted" }),
      error: ResourceMissing
    }).annotateMerge(summary("Delete a webhook endpoint", "Nothing more is sent to it; its deliveries go with it.")),
    HttpApiEndpoint.post("rotateSecret", "/webhook_endpoints/:id/rotate_secret", {
      params: EndpointIdParam,
      success: WebhookEndpointWithSecret,
      error: ResourceMissing
    }).annotateMerge(
      summary(
        "Rotate a webhook endpoint's secret",
        "Answers a new secret, shown this once. For 24 hours the previous secret signs every webhook as well (two signatures in `webhook-signature`), so receivers can switch without missing one."
      )
    ),
    HttpApiEndpoint.post("test", "/webhook_endpoints/:id/test", {
      params: EndpointIdParam,
      success: WebhookDeliveryWithAttempts,
      error: [InvalidRequest, ResourceMissing, ServiceUnavailable]
    }).annotateMerge(
      summary(
        "Send a test webhook",
        "Sends a `webhook.test` event now, signed and delivered as every event is, and answers the delivery with its attempt: the status your endpoint answered, or what went wrong. A disabled endpoint is refused (400). The test counts against the endpoint's limit of attempts in flight at once: when that is reached, nothing is sent and the answer is 503 with `Retry-After`."
      )
    ),
    HttpApiEndpoint.post("replay", "/webhook_endpoints/:id/replay", {
      params: EndpointIdParam,
      payload: Replay,
      success: Schema.Struct({
        object: Schema.Literal("webhook_replay"),
        queued: Schema.Int.annotate({ description: "The deliveries queued, one per event" })
      }).annotate({ identifier: "WebhookReplayQueued" }),
      error: [InvalidRequest, ResourceMissing]
    })
      .middleware(WebhooksBody)
      .annotateMerge(
        summary(
          "Replay events to a webhook endpoint",
          "Sends again, in sequence order, the events of the endpoint's types created in `[since, until)`. `since` must be within the events' retention (30 days by default). A window of more than 10,000 events by default is refused with 400: replay it in parts. When your organization already has 4 replays in flight, or the replay would leave it more than 50,000 deliveries waiting (the operator may set other bounds), nothing is queued and the answer is 429 with `Retry-After`."
        )
      ),
    HttpApiEndpoint.get("deliveries", "/webhook_endpoints/:id/deliveries", {
      params: EndpointIdParam,
      query: {
        status: optional(DeliveryStatus, "Only deliveries in this status"),
        event_type: optional(WebhookEventType, "Only deliveries of this event type"),
        starting_after: StartingAfter(
          WebhookDeliveryId,
          "delivery",
          "a webhook delivery id: wd_ and 32 lower-case hexadecimal characters"
        ),
        limit: Limit
      },
      success: listOf(WebhookDelivery, "WebhookDeliveryList"),
      error: ResourceMissing
    }).annotateMerge(summary("List an endpoint's deliveries", "Newest first.")),
    HttpApiEndpoint.get("delivery", "/webhook_deliveries/:id", {
      params: DeliveryIdParam,
      success: WebhookDeliveryWithAttempts,
      error: ResourceMissing
    }).annotateMerge(summary("Get a webhook delivery", "With each of its attempts.")),
    HttpApiEndpoint.post("retry", "/webhook_deliveries/:id/retry", {
      params: DeliveryIdParam,
      success: WebhookDelivery,
      error: [InvalidRequest, ResourceMissing]
    }).annotateMerge(
      summary(
        "Retry a webhook delivery",
        "Makes it due now, whatever its status. A disabled endpoint is refused (400)."
      )
    )
  )
  .middleware(WebhooksPermission)
  // A request body names only the fields it may: a misspelt field must not be silently ignored.
  .annotate(HttpApi.PayloadParseOptions, { onExcessProperty: "error" })
  .annotateMerge(
    OpenApi.annotations({
      title: "Webhooks",
      description:
        "Your events pushed to URLs you register, signed as Standard Webhooks define. Managing them needs a key with the `webhooks` permission."
    })
  ) {}
