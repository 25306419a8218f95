/**
 * `webhook list|create|disable|enable|delete|test|replay|deliveries|delivery`: an organization's
 * webhook endpoints for operators, over the same `WebhookEndpoints` service the API uses. The
 * secret is printed once, by `create`; every other command shows the endpoint without it. An
 * attempt is shown with what made it (`scheduled`, `retry`, `manual_retry`, `replay`, `test`).
 * Refusals are one line (an unknown id, a URL the outbound policy refuses, a replay window past
 * retention, a test beyond the endpoint's attempts in flight).
 */
import { DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { OrganizationNotFound } from "../../core/access/ports/ApiKeyStore.ts"
import { OrgId } from "../../core/shared/domain/Ids.ts"
import { Organizations } from "../../core/shared/ports/Organizations.ts"
import {
  DeliveryStatus,
  SubscribableEventType,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
  WebhookReplayRejected
} from "../../core/webhooks/domain/Webhooks.ts"
import { WebhookEndpoints } from "../../core/webhooks/services/WebhookEndpoints.ts"
import { json, orgFlag, print, time } from "./Common.ts"

const endpointJson = (e: WebhookEndpoint) => ({
  id: e.id,
  org_id: e.orgId,
  url: e.url,
  description: e.description,
  event_types: e.eventTypes,
  enabled: e.enabled,
  disabled_reason: e.disabledReason,
  created_at: time(e.createdAt)
})

const endpointLine = (e: WebhookEndpoint) =>
  [
    e.id,
    e.url,
    e.eventTypes.join(","),
    e.enabled ? "enabled" : `disabled (${e.disabledReason ?? "manual"})`,
    e.description ?? ""
  ].join("  ")

const deliveryJson = (d: WebhookDelivery) => ({
  id: d.id,
  event_id: d.eventId,
  event_type: d.eventType,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: time(d.nextAttemptAt),
  last_attempt_at: time(d.lastAttemptAt),
  created_at: time(d.createdAt)
})

const deliveryLine = (d: WebhookDelivery) =>
  [d.id, d.eventType, d.status, `${d.attempts} attempt(s)`, `last ${time(d.lastAttemptAt) ?? "never"}`].join("  ")

const attemptLine = (a: WebhookAttempt) =>
  [
    time(a.startedAt),
    a.trigger,
    a.outcome,
    a.responseStatus ?? "-",
    `${Math.round(a.durationMs)} ms`,
    a.error ?? ""
  ].join("  ")

const attemptJson = (a: WebhookAttempt) => ({
  id: a.id,
  trigger: a.trigger,
  attempted_at: time(a.startedAt),
  outcome: a.outcome,
  status_code: a.responseStatus,
  error: a.error,
  duration_ms: a.durationMs
})

/** The organization named by `--org`, which must exist: an endpoint always belongs to one. */
const organization = Effect.fn(function* (org: string) {
  const found = Schema.is(OrgId)(org) ? yield* (yield* Organizations).find(org) : Option.none()
  if (Option.isNone(found)) return yield* new OrganizationNotFound({ id: org })
  return found.value.id
})

const idArgument = Argument.String("endpoint-id").pipe(Argument.withDescription("The webhook endpoint's id (we_...)"))

const webhookCreate = Command.make(
  "create",
  {
    org: orgFlag,
    url: Flag.String("url").pipe(Flag.withDescription("Where events are sent: an https URL")),
    eventType: Flag.Literals("event-type", SubscribableEventType.literals).pipe(
      Flag.withDescription("An event type to send; repeat for several (default: every type)"),
      Flag.atLeast(0)
    ),
    description: Flag.String("description").pipe(Flag.withDescription("Something to recognise it by"), Flag.optional),
    json
  },
  Effect.fn(function* ({ org, url, eventType, description, json }) {
    const { endpoint, secret } = yield* (yield* WebhookEndpoints).create(yield* organization(org), {
      url,
      eventTypes: eventType.length === 0 ? undefined : eventType,
      description: Option.getOrNull(description)
    })
    yield* print(json, { ...endpointJson(endpoint), secret: Redacted.value(secret) }, () => [
      Redacted.value(secret),
      "",
      `Webhook endpoint ${endpoint.id} for organization ${endpoint.orgId}, sending ${endpoint.eventTypes.join(", ")} to ${endpoint.url}.`,
      "This is its signing secret: give it to the receiver now, it is shown only this once."
    ])
  })
).pipe(Command.withDescription("Create a webhook endpoint (its secret is printed once)"))

const webhookList = Command.make(
  "list",
  { org: orgFlag, json },
  Effect.fn(function* ({ org, json }) {
    const orgId = yield* organization(org)
    const endpoints = yield* (yield* WebhookEndpoints).list(orgId, { limit: 1_000 })
    yield* print(json, endpoints.items.map(endpointJson), () =>
      endpoints.items.length === 0 ? ["no webhook endpoints"] : endpoints.items.map(endpointLine)
    )
  })
).pipe(Command.withDescription("List an organization's webhook endpoints (never their secrets)"))

const switchTo = (enabled: boolean) =>
  Command.make(
    enabled ? "enable" : "disable",
    { org: orgFlag, id: idArgument, json },
    Effect.fn(function* ({ org, id, json }) {
      const endpoint = yield* (yield* WebhookEndpoints).update(yield* organization(org), id, { enabled })
      yield* print(json, endpointJson(endpoint), () => [endpointLine(endpoint)])
    })
  ).pipe(
    Command.withDescription(
      enabled
        ? "Enable a webhook endpoint: its waiting deliveries resume"
        : "Disable a webhook endpoint: nothing is sent to it, its deliveries wait"
    )
  )

const webhookDelete = Command.make(
  "delete",
  { org: orgFlag, id: idArgument, json },
  Effect.fn(function* ({ org, id, json }) {
    yield* (yield* WebhookEndpoints).remove(yield* organization(org), id)
    yield* print(json, { id, deleted: true }, () => [`deleted ${id} and its deliveries`])
  })
).pipe(Command.withDescription("Delete a webhook endpoint with its deliveries"))

const webhookTest = Command.make(
  "test",
  { org: orgFlag, id: idArgument, json },
  Effect.fn(function* ({ org, id, json }) {
    const { delivery, attempt } = yield* (yield* WebhookEndpoints).test(yield* organization(org), id)
    yield* print(json, { ...deliveryJson(delivery), attempt }, () => [deliveryLine(delivery), attemptLine(attempt)])
  })
).pipe(Command.withDescription("Send a webhook.test event now and show how the endpoint answered"))

const instant = (flag: string, text: string) =>
  Option.match(DateTime.make(text), {
    onNone: () =>
      Effect.fail(
        new WebhookReplayRejected({ message: `--${flag} is not an ISO 8601 date-time`, oldestAvailable: null })
      ),
    onSome: (value) => Effect.succeed(DateTime.toUtc(value))
  })

const webhookReplay = Command.make(
  "replay",
  {
    org: orgFlag,
    id: idArgument,
    since: Flag.String("since").pipe(Flag.withDescription("Re-send the events created from this instant (ISO 8601)")),
    until: Flag.String("until").pipe(
      Flag.withDescription("Up to this instant, excluded (default: now)"),
      Flag.optional
    ),
    json
  },
  Effect.fn(function* ({ org, id, since, until, json }) {
    const window = {
      since: yield* instant("since", since),
      until: Option.isSome(until) ? yield* instant("until", until.value) : undefined
    }
    const { queued } = yield* (yield* WebhookEndpoints).replay(yield* organization(org), id, window)
    yield* print(json, { queued }, () => [`queued ${queued} deliveries to ${id}, in sequence order`])
  })
).pipe(Command.withDescription("Re-send a window of events to a webhook endpoint"))

const webhookDeliveries = Command.make(
  "deliveries",
  {
    org: orgFlag,
    id: idArgument,
    status: Flag.Literals("status", DeliveryStatus.literals).pipe(
      Flag.withDescription("Only deliveries in this status"),
      Flag.optional
    ),
    limit: Flag.Int("limit").pipe(Flag.withDescription("How many, newest first (default 20)"), Flag.withDefault(20)),
    json
  },
  Effect.fn(function* ({ org, id, status, limit, json }) {
    const page = yield* (yield* WebhookEndpoints).deliveries(yield* organization(org), id, {
      status: Option.getOrUndefined(status),
      limit: Math.min(Math.max(limit, 1), 500)
    })
    yield* print(json, page.items.map(deliveryJson), () =>
      page.items.length === 0 ? ["no deliveries"] : page.items.map(deliveryLine)
    )
  })
).pipe(Command.withDescription("An endpoint's latest deliveries, newest first"))

const webhookDelivery = Command.make(
  "delivery",
  {
    org: orgFlag,
    id: Argument.String("delivery-id").pipe(Argument.withDescription("The webhook delivery's id (wd_...)")),
    json
  },
  Effect.fn(function* ({ org, id, json }) {
    const { delivery, attempts } = yield* (yield* WebhookEndpoints).delivery(yield* organization(org), id)
    yield* print(json, { delivery: deliveryJson(delivery), attempts: attempts.map(attemptJson) }, () => [
      deliveryLine(delivery),
      ...attempts.map((a) => `  ${attemptLine(a)}`)
    ])
  })
).pipe(Command.withDescription("A webhook delivery with each of its attempts and what made it, oldest first"))

// The webhooks' services (their crypto reads its master keys, the sender its policy), loaded only
// when a webhook command runs; the database comes from the CLI's own services around them.
const WebhookServices = Layer.unwrap(
  Effect.promise(() => import("../Layers.ts")).pipe(Effect.map((module) => module.WebhooksLive))
)

export const webhook = Command.make("webhook").pipe(
  Command.withDescription("Webhook endpoints"),
  Command.withSubcommands([
    webhookList,
    webhookCreate,
    switchTo(false),
    switchTo(true),
    webhookDelete,
    webhookTest,
    webhookReplay,
    webhookDeliveries,
    webhookDelivery
  ]),
  Command.provide(WebhookServices)
)
