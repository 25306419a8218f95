/**
 * The dashboard's API-key pages: the organization's keys, a new key (shown once, in the answer
 * to the form), and a revocation after a confirmation page. Members read; the core refuses
 * their changes, and so does each handler (403), not just the page.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import type { CurrentSession } from "../../../core/services/Accounts.ts"
import { liveKeyLimitMessage } from "../../../core/services/ApiKeys.ts"
import { KeyAdministration } from "../../../core/services/KeyAdministration.ts"
import { OrganizationUsage } from "../../../core/services/OrganizationUsage.ts"
import { type Guards, htmlPage, keysPath, notFound, seeOther, viewerOf } from "./Handlers.ts"
import * as Pages from "./Pages.ts"

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const keys = yield* KeyAdministration
  const usage = yield* OrganizationUsage
  const { signedIn, signedInChange } = guards

  const forbidden = (session: CurrentSession) =>
    htmlPage(
      Pages.refusal("Not allowed", "Only an admin of your organization can create or revoke keys.", viewerOf(session)),
      403
    )

  yield* router.add(
    "GET",
    keysPath,
    signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const actor = { user: session.user, clientAddress }
        const [records, days] = yield* Effect.all([keys.list(actor), usage.daily(actor)], { concurrency: "unbounded" })
        const revokedId = new URLSearchParams(request.url.split("?")[1] ?? "").get("revoked")
        const revoked = records.find((key) => key.id === revokedId?.toLowerCase() && key.revokedAt !== null)
        return htmlPage(
          Pages.keys(viewerOf(session), records, { usage: days, ...(revoked === undefined ? {} : { revoked }) })
        )
      })
    )
  )

  yield* router.add(
    "POST",
    keysPath,
    signedInChange((session, clientAddress, field) => {
      // The keys page again, saying why no key was made.
      const notCreated = (problem: string, status: number) =>
        Effect.map(keys.list({ user: session.user, clientAddress }), (records) =>
          htmlPage(Pages.keys(viewerOf(session), records, { problem: `Not created: ${problem}.` }), status)
        )
      // Read-only unless the form's box grants the webhooks permission.
      const permissions = field("webhooks") === "on" ? (["webhooks"] as const) : []
      return keys.create({ user: session.user, clientAddress }, field("name"), permissions).pipe(
        Effect.map((created) => htmlPage(Pages.keyCreated(viewerOf(session), created), 201)),
        Effect.catchTags({
          NotPermitted: () => Effect.succeed(forbidden(session)),
          KeyNameRejected: (rejected) => notCreated(rejected.message, 400),
          LiveKeyLimitReached: (refusal) => notCreated(liveKeyLimitMessage(refusal), 409)
        })
      )
    })
  )

  yield* router.add(
    "GET",
    "/dashboard/keys/:id/revoke",
    signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        if (session.user.role !== "admin") return forbidden(session)
        const key = yield* keys.find({ user: session.user, clientAddress }, (yield* HttpRouter.params).id ?? "")
        return key === undefined || key.revokedAt !== null
          ? notFound
          : htmlPage(Pages.confirmRevoke(viewerOf(session), key))
      })
    )
  )

  yield* router.add(
    "POST",
    "/dashboard/keys/:id/revoke",
    signedInChange((session, clientAddress) =>
      Effect.gen(function* () {
        const id = (yield* HttpRouter.params).id ?? ""
        return yield* keys.revoke({ user: session.user, clientAddress }, id).pipe(
          Effect.map((revoked) => seeOther(`${keysPath}?revoked=${revoked.id}`)),
          Effect.catchTags({
            NotPermitted: () => Effect.succeed(forbidden(session)),
            ApiKeyNotFound: () => Effect.succeed(notFound)
          })
        )
      })
    )
  )
})
