/**
 * The dashboard's webhook pages over the core's `WebhookEndpoints`: the endpoints with their
 * health (`WebhookOverview`), creating one (the secret is carried to the page that shows it once,
 * `ShownOnce.ts`), an endpoint's page and its changes, each asked to confirm first where it stops
 * or replaces something; testing, replaying and the deliveries are in `WebhookDeliveryRoutes.ts`.
 * Members read; every change is refused to them by its handler (403), and recorded in the
 * dashboard's audit once it took effect. Another organization's ids, like unknown ones, are the
 * 404 page: the service looks only in the session's.
 */
import { Effect, Option, Redacted } from "effect"
import type { HttpRouter } from "effect/http"
import { eventTypes } from "../../../../core/receivables/domain/Events.ts"
import { endpointLimitMessage, type SubscribableEventType } from "../../../../core/webhooks/domain/Webhooks.ts"
import { WebhookOverview } from "../../../../core/webhooks/ports/WebhookOverview.ts"
import {
  formValuesOf,
  type Guarded,
  type Guards,
  htmlPage,
  notFound,
  queryOf,
  seeOther,
  viewerOf
} from "../frame/Handlers.ts"
import * as ShownOnce from "../frame/ShownOnce.ts"
import * as WebhookDeliveryRoutes from "./WebhookDeliveryRoutes.ts"
import { makeWebhookHandlers } from "./WebhookHandlers.ts"
import * as WebhookPages from "./WebhookPages.ts"
import { type Confirmable, confirmations, endpointPath, secretPath, webhooksPath } from "./WebhookPages.ts"

const secretOnce: ShownOnce.ShownOnce = { name: "pr_webhook_secret", path: secretPath }
const endpointsPerPage = 50

/** The feed's types among a form's ticked boxes; anything else a form sends is ignored. */
const subscribable = (ticked: ReadonlyArray<string>): Array<SubscribableEventType> =>
  eventTypes.filter((type) => ticked.includes(type))

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const overview = yield* WebhookOverview
  const handlers = yield* makeWebhookHandlers(guards)
  const { endpoints, forbidden, idParam, adminChange, endpointView, refusedOnEndpoint } = handlers
  const { context, signedIn } = guards

  const listPage = (session: Guarded, options: { readonly problem?: string; readonly after?: string }) =>
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
          org,
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
            Effect.map(listPage(session, { problem: `Not added: ${rejected.message}.` }), (body) =>
              htmlPage(body, 400)
            ),
          WebhookEndpointLimitReached: (refusal) =>
            Effect.map(listPage(session, { problem: `Not added: ${endpointLimitMessage(refusal)}` }), (body) =>
              htmlPage(body, 400)
            )
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
        const carried = yield* ShownOnce.take(secretOnce, session.user.orgId, request, origin.secure)
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
          org,
          seeOther(secretPath),
          `rotated.${rotated.endpoint.id}.${Redacted.value(rotated.secret)}`,
          origin.secure
        )
      }).pipe(Effect.catchTag("WebhookEndpointNotFound", () => Effect.succeed(notFound)))
    )
  )

  yield* WebhookDeliveryRoutes.register(router, guards, handlers)
})
