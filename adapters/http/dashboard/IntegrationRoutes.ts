/**
 * The overview and the integration pages: counts by status from the core's `Receivables` (the
 * API's list, one count per status), the pairs from `DashboardIntegrations`, and pausing or
 * resuming a pair (POST with the CSRF token; the core refuses a member, and so does the answer,
 * 403). Never storage.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { statuses } from "../../../core/domain/Status.ts"
import type { CurrentSession } from "../../../core/services/DashboardAccess.ts"
import { DashboardIntegrations } from "../../../core/services/DashboardIntegrations.ts"
import { Receivables } from "../../../core/services/Receivables.ts"
import { type Guards, htmlPage, notFound, overviewPath, queryOf, seeOther, viewerOf } from "./Handlers.ts"
import * as IntegrationPages from "./IntegrationPages.ts"
import * as Pages from "./Pages.ts"

const integrationsPath = "/dashboard/integrations"

/** What the page says after a pause or resume (the redirect's `changed`). */
const changedNotices = new Map([
  ["paused", "Paused: the pair is not synced until it is resumed."],
  ["resumed", "Resumed: the pair is synced again on its schedule."]
])

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const receivables = yield* Receivables
  const integrations = yield* DashboardIntegrations
  const { signedIn, signedInChange } = guards

  // Counted with the API's own list: every receivable ever verified, one row fetched per status.
  const countOf = (session: CurrentSession) => (status: (typeof statuses)[number]) =>
    receivables.list(session.user.orgId, { status, verifiedSince: "all", historyLimit: 0, page: 1, limit: 1 }).pipe(
      Effect.map((list) => [status, list.totalCount] as const),
      // Neither refusal can happen without paging after an item.
      Effect.orDie
    )

  yield* router.add(
    "GET",
    overviewPath,
    signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        const [byStatus, pairs] = yield* Effect.all(
          [
            Effect.forEach(statuses, countOf(session), { concurrency: "unbounded" }),
            integrations.list({ user: session.user, clientAddress })
          ],
          { concurrency: "unbounded" }
        )
        return htmlPage(IntegrationPages.overview(viewerOf(session), byStatus, pairs))
      })
    )
  )

  yield* router.add(
    "GET",
    integrationsPath,
    signedIn((session, clientAddress) =>
      Effect.map(integrations.list({ user: session.user, clientAddress }), (pairs) =>
        htmlPage(IntegrationPages.integrations(viewerOf(session), pairs))
      )
    )
  )

  yield* router.add(
    "GET",
    `${integrationsPath}/:id`,
    signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        const id = (yield* HttpRouter.params).id ?? ""
        const changed = queryOf(yield* HttpServerRequest.HttpServerRequest).get("changed")
        return yield* integrations.show({ user: session.user, clientAddress }, id).pipe(
          Effect.map((detail) =>
            htmlPage(IntegrationPages.integration(viewerOf(session), detail, changedNotices.get(changed ?? "")))
          ),
          Effect.catchTag("IntegrationNotFound", () => Effect.succeed(notFound))
        )
      })
    )
  )

  const change = (paused: boolean) =>
    signedInChange((session, clientAddress) =>
      Effect.gen(function* () {
        const id = (yield* HttpRouter.params).id ?? ""
        return yield* integrations.setPaused({ user: session.user, clientAddress }, id, paused).pipe(
          Effect.map((pair) => seeOther(`${integrationsPath}/${pair.id}?changed=${paused ? "paused" : "resumed"}`)),
          Effect.catchTags({
            NotPermitted: () =>
              Effect.succeed(
                htmlPage(
                  Pages.refusal(
                    "Not allowed",
                    "Only an admin of your organization can pause or resume a pair.",
                    viewerOf(session)
                  ),
                  403
                )
              ),
            IntegrationNotFound: () => Effect.succeed(notFound)
          })
        )
      })
    )

  yield* router.add("POST", `${integrationsPath}/:id/pause`, change(true))
  yield* router.add("POST", `${integrationsPath}/:id/resume`, change(false))
})
