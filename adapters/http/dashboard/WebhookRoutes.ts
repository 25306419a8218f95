/**
 * The dashboard's webhook pages over the core's `WebhookEndpoints`: the endpoints with their
 * health (`WebhookOverview`), creating one (the secret is carried to the page that shows it once,
 * `ShownOnce.ts`), an endpoint's page and its changes, each asked to confirm first where it stops
 * or replaces something, a delivery's page and retrying it. Members read; every change is refused
 * to them by its handler (403), and recorded in the dashboard's audit once it took effect. Another
 * organization's ids, like unknown ones, are the 404 page: the service looks only in the session's.
 */
import { DateTime, Effect, Option, Redacted } from "effect"
import { HttpRouter } from "effect/http"
import { eventTypes } from "../../../core/domain/Events.ts"
import type { OrgId } from "../../../core/domain/Ids.ts"
import { type SubscribableEventType, webhookEventTypes } from "../../../core/domain/Webhooks.ts"
import type { DashboardAction } from "../../../core/ports/DashboardAuditLog.ts"
import { WebhookOverview } from "../../../core/ports/WebhookOverview.ts"
import { Accounts, type CurrentSession } from "../../../core/services/Accounts.ts"
import { WebhookEndpoints } from "../../../core/services/WebhookEndpoints.ts"
import {
  formValuesOf,
  type Guards,
  htmlPage,
  notFound,
  queryOf,
  type Response,
  seeOther,
  viewerOf
} from "./Handlers.ts"
import * as Pages from "./Pages.ts"
import * as ShownOnce from "./ShownOnce.ts"
import { deliveryPage, deliveryPath, deliveryStatuses, endpointPage } from "./WebhookEndpointPages.ts"
import * as WebhookPages from "./WebhookPages.ts"
import { type Confirmable, confirmations, endpointPath, secretPath, webhooksPath } from "./WebhookPages.ts"

const secretOnce: ShownOnce.ShownOnce = { name: "pr_webhook_secret", path: secretPath }
const endpointsPerPage = 50
const deliveriesPerPage = 25

/** The feed's types among a form's ticked boxes; anything else a form sends is ignored. */
const subscribable = (ticked: ReadonlyArray<string>): Array<SubscribableEventType> =>
  eventTypes.filter((type) => ticked.includes(type))

/** A `datetime-local` value, or ISO 8601, read as UTC; undefined when it is neither. */
const instantOf = (text: string) => {
  const trimmed = text.trim()
  if (trimmed === "") return undefined
  return Option.getOrUndefined(DateTime.make(/[zZ]|[+-]\d\d:\d\d$/.test(trimmed) ? trimmed : `${trimmed}Z`))
}

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const endpoints = yield* WebhookEndpoints
  const overview = yield* WebhookOverview
  const access = yield* Accounts
  const { context, signedIn, signedInChange } = guards

  const forbidden = (session: CurrentSession) =>
    htmlPage(
      Pages.refusal(
        "Not allowed",
        "Only an admin of your organization can change webhook endpoints.",
        viewerOf(session)
      ),
      403
    )

  const idParam = Effect.map(HttpRouter.params, (params) => params.id ?? "")

  /** A change by an admin, recorded once it took effect; anyone else is refused before it is tried. */
  const adminChange = <R>(
    handle: (
      org: OrgId,
      audit: (action: DashboardAction, subject: string) => Effect.Effect<void>,
      field: (name: string) => string,
      session: CurrentSession
    ) => Effect.Effect<Response, never, R>
  ) =>
    signedInChange((session, clientAddress, field) =>
      session.user.role !== "admin"
        ? Effect.succeed(forbidden(session))
        : handle(
            session.user.orgId,
            (action, subject) => access.record({ user: session.user, clientAddress }, action, subject),
            field,
            session
          )
    )

  const listPage = (session: CurrentSession, options: { readonly problem?: string; readonly after?: string }) =>
    Effect.gen(function* () {
      const org = session.user.orgId
      const found = yield* endpoints.list(org, { after: options.after, limit: endpointsPerPage })
      const health = yield* overview.health(
        org,
        found.items.map((endpoint) => endpoint.id)
      )
      return WebhookPages.list(viewerOf(session), found.items, health, {
        ...(options.problem === undefined ? {} : { problem: options.problem }),
        ...(found.hasMore ? { older: found.items.at(-1)?.id ?? "" } : {})
      })
    })

  yield* router.add(
    "GET",
    webhooksPath,
    signedIn((session) =>
      Effect.gen(function* () {
        const { request } = yield* context
        const after = queryOf(request).get("after") ?? undefined
        return htmlPage(yield* listPage(session, after === undefined ? {} : { after }))
      })
    )
  )

  yield* router.add(
    "POST",
    webhooksPath,
    adminChange((org, audit, field, session) =>
      Effect.gen(function* () {
        const { request, origin } = yield* context
        const types = subscribable(yield* formValuesOf(request, "event_types"))
        const description = field("description").trim()
        const created = yield* endpoints.create(org, {
          url: field("url").trim(),
          eventTypes: types.length === 0 ? undefined : types,
          description: description === "" ? null : description
        })
        yield* audit("webhook_endpoint_created", created.endpoint.id)
        return yield* ShownOnce.redirect(
          secretOnce,
          seeOther(secretPath),
          `created.${created.endpoint.id}.${Redacted.value(created.secret)}`,
          origin.secure
        )
      }).pipe(
        Effect.catchTags({
          WebhookUrlRejected: (rejected) =>
            Effect.map(listPage(session, { problem: `Not added: ${rejected.message}.` }), (body) =>
              htmlPage(body, 400)
            ),
          WebhookEndpointRejected: (rejected) =>
            Effect.map(listPage(session, { problem: `Not added: ${rejected.message}.` }), (body) => htmlPage(body, 400))
        })
      )
    )
  )

  // The secret, once: this answer clears the cookie, so a reload leads back to the list.
  yield* router.add(
    "GET",
    secretPath,
    signedIn((session) =>
      Effect.gen(function* () {
        const { request, origin } = yield* context
        const carried = ShownOnce.read(secretOnce, request, origin.secure)
        const [kind = "", id = "", secret = ""] = (carried.value ?? "").split(".")
        const endpoint = yield* Effect.option(endpoints.get(session.user.orgId, id))
        const answer =
          Option.isNone(endpoint) || secret === ""
            ? seeOther(webhooksPath)
            : htmlPage(
                WebhookPages.secretShown(viewerOf(session), {
                  endpoint: endpoint.value,
                  secret,
                  rotated: kind === "rotated"
                })
              )
        return yield* carried.clear(answer)
      })
    )
  )

  const endpointView = (session: CurrentSession, id: string, options: { readonly problem?: string } = {}) =>
    Effect.gen(function* () {
      const { request } = yield* context
      const query = queryOf(request)
      const status = deliveryStatuses.find((candidate) => candidate === query.get("status"))
      const eventType = webhookEventTypes.find((candidate) => candidate === query.get("event_type"))
      const endpoint = yield* endpoints.get(session.user.orgId, id)
      const page = yield* endpoints.deliveries(session.user.orgId, endpoint.id, {
        status,
        eventType,
        after: query.get("after") ?? undefined,
        limit: deliveriesPerPage
      })
      const replayed = query.get("replayed")
      const notice = query.has("updated")
        ? "Saved."
        : query.has("enabled")
          ? "Enabled: deliveries resume now."
          : query.has("disabled")
            ? "Disabled: its events wait until it is enabled again."
            : replayed !== null
              ? `${Number(replayed)} events queued again.`
              : undefined
      return endpointPage(
        viewerOf(session),
        endpoint,
        {
          deliveries: page.items,
          status,
          eventType,
          older: page.hasMore ? page.items.at(-1)?.id : undefined
        },
        { ...(notice === undefined ? {} : { notice }), ...options }
      )
    })

  yield* router.add(
    "GET",
    `${webhooksPath}/:id`,
    signedIn((session) =>
      Effect.flatMap(idParam, (id) => endpointView(session, id)).pipe(
        Effect.map((body) => htmlPage(body)),
        Effect.catchTag("WebhookEndpointNotFound", () => Effect.succeed(notFound))
      )
    )
  )

  /** The endpoint's page again, saying why nothing changed. */
  const refusedOnEndpoint = (session: CurrentSession, id: string, problem: string, status: number) =>
    endpointView(session, id, { problem }).pipe(
      Effect.map((body) => htmlPage(body, status)),
      Effect.catchTag("WebhookEndpointNotFound", () => Effect.succeed(notFound))
    )

  yield* router.add(
    "POST",
    `${webhooksPath}/:id`,
    adminChange((org, audit, field, session) =>
      Effect.gen(function* () {
        const { request } = yield* context
        const id = yield* idParam
        const types = subscribable(yield* formValuesOf(request, "event_types"))
        const description = field("description").trim()
        const updated = yield* endpoints.update(org, id, {
          url: field("url").trim(),
          eventTypes: types,
          description: description === "" ? null : description
        })
        yield* audit("webhook_endpoint_updated", updated.id)
        return seeOther(`${endpointPath(updated.id)}?updated`)
      }).pipe(
        Effect.catchTags({
          WebhookUrlRejected: (rejected) =>
            Effect.flatMap(idParam, (id) => refusedOnEndpoint(session, id, `Not saved: ${rejected.message}.`, 400)),
          WebhookEndpointRejected: (rejected) =>
            Effect.flatMap(idParam, (id) => refusedOnEndpoint(session, id, `Not saved: ${rejected.message}.`, 400))
        }),
        Effect.catchTag("WebhookEndpointNotFound", () => Effect.succeed(notFound))
      )
    )
  )

  // The confirmation pages, for admins: members have no link to them, and a 403 when they ask.
  for (const action of Object.keys(confirmations) as Array<Confirmable>) {
    yield* router.add(
      "GET",
      `${webhooksPath}/:id/${action}`,
      signedIn((session) =>
        Effect.gen(function* () {
          if (session.user.role !== "admin") return forbidden(session)
          const endpoint = yield* Effect.option(endpoints.get(session.user.orgId, yield* idParam))
          return Option.isNone(endpoint)
            ? notFound
            : htmlPage(WebhookPages.confirm(viewerOf(session), endpoint.value, action))
        })
      )
    )
  }

  const setEnabled = (enabled: boolean) =>
    adminChange((org, audit) =>
      Effect.gen(function* () {
        const endpoint = yield* endpoints.update(org, yield* idParam, { enabled })
        yield* audit(enabled ? "webhook_endpoint_enabled" : "webhook_endpoint_disabled_by_user", endpoint.id)
        return seeOther(`${endpointPath(endpoint.id)}?${enabled ? "enabled" : "disabled"}`)
      }).pipe(
        Effect.catchTag("WebhookEndpointNotFound", () => Effect.succeed(notFound)),
        // Only a URL, a description or event types are judged, and this change names none.
        Effect.orDie
      )
    )
  yield* router.add("POST", `${webhooksPath}/:id/enable`, setEnabled(true))
  yield* router.add("POST", `${webhooksPath}/:id/disable`, setEnabled(false))

  yield* router.add(
    "POST",
    `${webhooksPath}/:id/delete`,
    adminChange((org, audit) =>
      Effect.gen(function* () {
        const id = yield* idParam
        yield* endpoints.remove(org, id)
        yield* audit("webhook_endpoint_deleted", id)
        return seeOther(webhooksPath)
      }).pipe(Effect.catchTag("WebhookEndpointNotFound", () => Effect.succeed(notFound)))
    )
  )

  yield* router.add(
    "POST",
    `${webhooksPath}/:id/rotate`,
    adminChange((org, audit) =>
      Effect.gen(function* () {
        const { origin } = yield* context
        const rotated = yield* endpoints.rotateSecret(org, yield* idParam)
        yield* audit("webhook_endpoint_secret_rotated", rotated.endpoint.id)
        return yield* ShownOnce.redirect(
          secretOnce,
          seeOther(secretPath),
          `rotated.${rotated.endpoint.id}.${Redacted.value(rotated.secret)}`,
          origin.secure
        )
      }).pipe(Effect.catchTag("WebhookEndpointNotFound", () => Effect.succeed(notFound)))
    )
  )

  // The test is attempted while the request waits; its delivery's page shows the outcome.
  yield* router.add(
    "POST",
    `${webhooksPath}/:id/test`,
    adminChange((org, audit, _field, session) =>
      Effect.gen(function* () {
        const id = yield* idParam
        const { delivery } = yield* endpoints.test(org, id)
        yield* audit("webhook_endpoint_tested", delivery.endpointId)
        return seeOther(`${deliveryPath(delivery.endpointId, delivery.id)}?tested`)
      }).pipe(
        Effect.catchTags({
          WebhookEndpointNotFound: () => Effect.succeed(notFound),
          WebhookEndpointDisabled: ({ id }) =>
            refusedOnEndpoint(session, id, "Not sent: the endpoint is disabled; enable it first.", 409)
        })
      )
    )
  )

  yield* router.add(
    "POST",
    `${webhooksPath}/:id/replay`,
    adminChange((org, audit, field, session) =>
      Effect.gen(function* () {
        const id = yield* idParam
        const since = instantOf(field("since"))
        const until = instantOf(field("until"))
        if (since === undefined || (field("until").trim() !== "" && until === undefined)) {
          return yield* refusedOnEndpoint(
            session,
            id,
            "Not replayed: give the window's start (and end) as dates and times.",
            400
          )
        }
        const { queued } = yield* endpoints.replay(org, id, { since, until })
        yield* audit("webhook_endpoint_replayed", id)
        return seeOther(`${endpointPath(id)}?replayed=${queued}`)
      }).pipe(
        Effect.catchTags({
          WebhookEndpointNotFound: () => Effect.succeed(notFound),
          WebhookReplayRejected: (rejected) =>
            Effect.flatMap(idParam, (id) =>
              refusedOnEndpoint(
                session,
                id,
                `Not replayed: ${rejected.message}${rejected.oldestAvailable === null ? "" : ` (the earliest start now: ${rejected.oldestAvailable})`}.`,
                400
              )
            )
        })
      )
    )
  )

  const deliveryView = (session: CurrentSession, options: { readonly problem?: string } = {}) =>
    Effect.gen(function* () {
      const { request } = yield* context
      const params = yield* HttpRouter.params
      const org = session.user.orgId
      const endpoint = yield* endpoints.get(org, params.id ?? "")
      const { delivery, attempts } = yield* endpoints.delivery(org, endpoint.id, params.delivery ?? "")
      const query = queryOf(request)
      const last = attempts.at(-1)
      const notice = query.has("tested")
        ? `Test sent: ${last === undefined ? "no attempt recorded" : `${last.outcome}${last.responseStatus === null ? "" : ` (${last.responseStatus})`}`}.`
        : query.has("retried")
          ? "Due again now: a worker attempts it shortly."
          : undefined
      return deliveryPage(viewerOf(session), endpoint, delivery, attempts, {
        ...(notice === undefined ? {} : { notice }),
        ...options
      })
    })

  const deliveryAnswer = (session: CurrentSession, status: number, options: { readonly problem?: string } = {}) =>
    deliveryView(session, options).pipe(
      Effect.map((body) => htmlPage(body, status)),
      Effect.catchTags({
        WebhookEndpointNotFound: () => Effect.succeed(notFound),
        WebhookDeliveryNotFound: () => Effect.succeed(notFound)
      })
    )

  yield* router.add(
    "GET",
    `${webhooksPath}/:id/deliveries/:delivery`,
    signedIn((session) => deliveryAnswer(session, 200))
  )

  yield* router.add(
    "POST",
    `${webhooksPath}/:id/deliveries/:delivery/retry`,
    adminChange((org, audit, _field, session) =>
      Effect.gen(function* () {
        const params = yield* HttpRouter.params
        const retried = yield* endpoints.retry(org, params.id ?? "", params.delivery ?? "")
        yield* audit("webhook_delivery_retried", retried.id)
        return seeOther(`${deliveryPath(retried.endpointId, retried.id)}?retried`)
      }).pipe(
        Effect.catchTags({
          WebhookEndpointNotFound: () => Effect.succeed(notFound),
          WebhookDeliveryNotFound: () => Effect.succeed(notFound),
          WebhookEndpointDisabled: () =>
            deliveryAnswer(session, 409, { problem: "Not retried: the endpoint is disabled; enable it first." })
        })
      )
    )
  )
})
