/**
 * What the webhook pages' routes share: the refusal a member gets, the admins' change (refused to
 * anyone else before it is tried, recorded in the dashboard's audit once it took effect), and an
 * endpoint's page with its delivery log as the query string filters and pages it.
 */
import { Effect } from "effect"
import { HttpRouter } from "effect/http"
import { Accounts } from "../../../../core/accounts/services/Accounts.ts"
import type { UserAction } from "../../../../core/accounts/services/ActionLog.ts"
import type { OrgId } from "../../../../core/shared/domain/Ids.ts"
import { webhookEventTypes } from "../../../../core/webhooks/domain/Webhooks.ts"
import { WebhookEndpoints } from "../../../../core/webhooks/services/WebhookEndpoints.ts"
import { type Guarded, type Guards, htmlPage, notFound, queryOf, type Response, viewerOf } from "../frame/Handlers.ts"
import * as Pages from "../frame/Pages.ts"
import { deliveryStatuses, endpointPage } from "./WebhookEndpointPages.ts"

const deliveriesPerPage = 25

export const makeWebhookHandlers = Effect.fnUntraced(function* (guards: Guards) {
  const endpoints = yield* WebhookEndpoints
  const access = yield* Accounts
  const { context, signedInChange } = guards

  const forbidden = (session: Guarded) =>
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
      audit: (action: UserAction, subject: string) => Effect.Effect<void>,
      field: (name: string) => string,
      session: Guarded
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

  const endpointView = (session: Guarded, id: string, options: { readonly problem?: string } = {}) =>
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

  /** The endpoint's page again, saying why nothing changed. */
  const refusedOnEndpoint = (session: Guarded, id: string, problem: string, status: number) =>
    endpointView(session, id, { problem }).pipe(
      Effect.map((body) => htmlPage(body, status)),
      Effect.catchTag("WebhookEndpointNotFound", () => Effect.succeed(notFound))
    )

  return { endpoints, forbidden, idParam, adminChange, endpointView, refusedOnEndpoint }
})

export type WebhookHandlers = Effect.Success<ReturnType<typeof makeWebhookHandlers>>
