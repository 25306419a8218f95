/**
 * The overview and the integration pages: amounts per status and currency from the core's
 * `ReceivableFinder`, the pairs from `IntegrationAdministration`, pausing or resuming a pair, and
 * "Sync now" through `PairSyncNow` (POSTs with the CSRF token; the core refuses a member, and so
 * does the answer, 403; a sync the pair's limits do not allow yet is refused with the reason,
 * 409). Never storage.
 */
import { DateTime, Effect } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { IntegrationAdministration } from "../../../../core/admin/services/IntegrationAdministration.ts"
import { PairSyncNow } from "../../../../core/admin/services/PairSyncNow.ts"
import { ReceivableFinder } from "../../../../core/receivables/services/ReceivableFinder.ts"
import { WebhookOverview } from "../../../../core/webhooks/ports/WebhookOverview.ts"
import {
  type Guarded,
  type Guards,
  htmlPage,
  notFound,
  overviewPath,
  queryOf,
  seeOther,
  viewerOf
} from "../frame/Handlers.ts"
import * as Pages from "../frame/Pages.ts"
import { disabledEndpointsListed } from "./Attention.ts"
import * as IntegrationPages from "./IntegrationPages.ts"

const { integrationsPath } = IntegrationPages

/** What the page says after a pause or resume (the redirect's `changed`). */
const changedNotices = new Map([
  ["paused", "Paused: the pair is not synced until it is resumed."],
  ["resumed", "Resumed: the pair is synced again on its schedule."],
  ["synced", "Synced: the newest run is at the top of the history."],
  ["sync-failed", "The sync ran and failed: the newest run in the history says why."]
])

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const finder = yield* ReceivableFinder
  const integrations = yield* IntegrationAdministration
  const syncs = yield* PairSyncNow
  const webhooks = yield* WebhookOverview
  const { signedIn, signedInChange } = guards

  yield* router.add(
    "GET",
    overviewPath,
    signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        const [totals, pairs, disabled] = yield* Effect.all(
          [
            finder.totals(session.user.orgId),
            integrations.list({ user: session.user, clientAddress }),
            webhooks.disabled(session.user.orgId, disabledEndpointsListed)
          ],
          { concurrency: "unbounded" }
        )
        return htmlPage(IntegrationPages.overview(viewerOf(session), totals, pairs, yield* DateTime.now, disabled))
      })
    )
  )

  yield* router.add(
    "GET",
    integrationsPath,
    signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        const filters = IntegrationPages.pairFiltersOf(queryOf(yield* HttpServerRequest.HttpServerRequest))
        const problem = IntegrationPages.pairProblemOf(filters)
        // An organization's pairs are few (an operator adds each), and the overview reads them all
        // too: filtered and paged here rather than in storage.
        const pairs = yield* integrations.list({ user: session.user, clientAddress })
        const view = {
          filters,
          matching: problem === undefined ? IntegrationPages.pairsMatching(pairs, filters) : [],
          anyPair: pairs.length > 0,
          problem
        }
        return htmlPage(IntegrationPages.integrations(viewerOf(session), view), problem === undefined ? 200 : 400)
      })
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
            htmlPage(
              IntegrationPages.integration(viewerOf(session), detail, { changed: changedNotices.get(changed ?? "") })
            )
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

  const notAllowed = (session: Guarded, what: string) =>
    htmlPage(Pages.refusal("Not allowed", `Only an admin of your organization can ${what}.`, viewerOf(session)), 403)

  yield* router.add(
    "POST",
    `${integrationsPath}/:id/sync`,
    signedInChange((session, clientAddress) =>
      Effect.gen(function* () {
        const id = (yield* HttpRouter.params).id ?? ""
        const actor = { user: session.user, clientAddress }
        return yield* syncs.syncNow(actor, id).pipe(
          Effect.map((outcome) =>
            seeOther(
              `${integrationsPath}/${outcome.integrationId}?changed=${outcome._tag === "Succeeded" ? "synced" : "sync-failed"}`
            )
          ),
          Effect.catchTag("NotPermitted", () => Effect.succeed(notAllowed(session, "sync a pair"))),
          // Too soon after the last run, or before the portal's Retry-After: the page says until when.
          Effect.catchTag("DirectoryRefused", (refusal) =>
            Effect.map(integrations.show(actor, id), (detail) =>
              htmlPage(
                IntegrationPages.integration(viewerOf(session), detail, {
                  refused: IntegrationPages.notSyncedBecause(refusal.wait)
                }),
                409
              )
            )
          ),
          Effect.catchTag("IntegrationNotFound", () => Effect.succeed(notFound))
        )
      })
    )
  )

  yield* router.add("POST", `${integrationsPath}/:id/pause`, change(true))
  yield* router.add("POST", `${integrationsPath}/:id/resume`, change(false))
})
