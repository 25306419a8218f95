/**
 * The webhook routes that send: a test (attempted while the request waits, its delivery's page
 * then shows the outcome), a replay of a window of events, a delivery's page with its attempts,
 * and retrying a delivery. Admins act; members read (`WebhookHandlers.ts`).
 */
import { DateTime, Effect, Option } from "effect"
import { HttpRouter } from "effect/http"
import { organizationBusyMessage, WebhookDeliveryNotFound } from "../../../../core/webhooks/domain/Webhooks.ts"
import { type Guarded, type Guards, htmlPage, notFound, queryOf, seeOther, viewerOf } from "../frame/Handlers.ts"
import { deliveryPage, deliveryPath } from "./WebhookEndpointPages.ts"
import type { WebhookHandlers } from "./WebhookHandlers.ts"
import { endpointPath, webhooksPath } from "./WebhookPages.ts"

/** A `datetime-local` value, or ISO 8601, read as UTC; undefined when it is neither. */
export const instantOf = (text: string) => {
  const trimmed = text.trim()
  if (trimmed === "") return undefined
  return Option.getOrUndefined(DateTime.make(/(?:[zZ]|[+-]\d\d:\d\d)$/.test(trimmed) ? trimmed : `${trimmed}Z`))
}

export const register = Effect.fnUntraced(function* (
  router: HttpRouter.HttpRouter,
  guards: Guards,
  handlers: WebhookHandlers
) {
  const { context, signedIn } = guards
  const { endpoints, idParam, adminChange, refusedOnEndpoint } = handlers

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
            refusedOnEndpoint(session, id, "Not sent: the endpoint is disabled; enable it first.", 409),
          WebhookEndpointBusy: ({ id }) =>
            refusedOnEndpoint(
              session,
              id,
              "Not sent: the endpoint already has as many deliveries in flight as it may; try again in a few seconds.",
              503
            )
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
            ),
          WebhookOrganizationBusy: (refusal) =>
            Effect.flatMap(idParam, (id) =>
              refusedOnEndpoint(session, id, `Not replayed: ${organizationBusyMessage(refusal)}`, 429)
            )
        })
      )
    )
  )

  // A delivery is found by its id alone; the page's address also names its endpoint, which must match.
  const deliveryOf = (org: Guarded["user"]["orgId"], endpointId: string, deliveryId: string) =>
    Effect.filterOrFail(
      endpoints.delivery(org, deliveryId),
      (found) => found.delivery.endpointId === endpointId,
      () => new WebhookDeliveryNotFound({ id: deliveryId })
    )

  const deliveryView = (session: Guarded, options: { readonly problem?: string } = {}) =>
    Effect.gen(function* () {
      const { request } = yield* context
      const params = yield* HttpRouter.params
      const org = session.user.orgId
      const endpoint = yield* endpoints.get(org, params.id ?? "")
      const { delivery, attempts, body } = yield* deliveryOf(org, endpoint.id, params.delivery ?? "")
      const query = queryOf(request)
      const last = attempts.at(-1)
      const notice = query.has("tested")
        ? `Test sent: ${last === undefined ? "no attempt recorded" : `${last.outcome}${last.responseStatus === null ? "" : ` (${last.responseStatus})`}`}.`
        : query.has("retried")
          ? "Due again now: a worker attempts it shortly."
          : undefined
      return deliveryPage(viewerOf(session), endpoint, delivery, attempts, body, {
        ...(notice === undefined ? {} : { notice }),
        ...options
      })
    })

  const deliveryAnswer = (session: Guarded, status: number, options: { readonly problem?: string } = {}) =>
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
        const { delivery } = yield* deliveryOf(org, params.id ?? "", params.delivery ?? "")
        const retried = yield* endpoints.retry(org, delivery.id)
        yield* audit("webhook_delivery_retried", retried.id)
        return seeOther(`${deliveryPath(retried.endpointId, retried.id)}?retried`)
      }).pipe(
        Effect.catchTags({
          WebhookDeliveryNotFound: () => Effect.succeed(notFound),
          WebhookEndpointDisabled: () =>
            deliveryAnswer(session, 409, { problem: "Not retried: the endpoint is disabled; enable it first." })
        })
      )
    )
  )
})
