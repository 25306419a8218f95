/**
 * The dashboard's API-key pages: the organization's keys, each key's usage, a new key and a
 * revocation after a confirmation page. Creating a key answers with a redirect (reloading the
 * page that follows never posts the form again) to a page that shows the key once
 * (`ShownOnce.ts`). Members
 * read; the core refuses their changes, and so does each handler (403), not just the page.
 */
import { Effect, Redacted } from "effect"
import { HttpRouter } from "effect/http"
import { liveKeyLimitMessage } from "../../../../core/access/services/ApiKeys.ts"
import { KeyAdministration, namesakes } from "../../../../core/admin/services/KeyAdministration.ts"
import { OrganizationUsage } from "../../../../core/admin/services/OrganizationUsage.ts"
import {
  type Guarded,
  type Guards,
  htmlPage,
  keysPath,
  notFound,
  queryOf,
  seeOther,
  viewerOf
} from "../frame/Handlers.ts"
import * as Pages from "../frame/Pages.ts"
import * as ShownOnce from "../frame/ShownOnce.ts"
import * as KeyPages from "./KeyPages.ts"

/** The new key, on its way to the page that shows it once. */
const newKey: ShownOnce.ShownOnce = { name: "pr_new_key", path: KeyPages.newKeyPath }

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const keys = yield* KeyAdministration
  const usage = yield* OrganizationUsage
  const { context, signedIn, signedInChange } = guards

  const forbidden = (session: Guarded) =>
    htmlPage(
      Pages.refusal("Not allowed", "Only an admin of your organization can create or revoke keys.", viewerOf(session)),
      403
    )

  yield* router.add(
    "GET",
    keysPath,
    signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        const { request } = yield* context
        const actor = { user: session.user, clientAddress }
        const [records, days] = yield* Effect.all([keys.list(actor), usage.daily(actor)], { concurrency: "unbounded" })
        const query = queryOf(request)
        const revokedId = query.get("revoked")
        const revoked = records.find((key) => key.id === revokedId?.toLowerCase() && key.revokedAt !== null)
        return htmlPage(
          KeyPages.keys(viewerOf(session), records, {
            usage: days,
            ...(revoked === undefined ? {} : { revoked }),
            ...(query.has("shown") ? { notice: "That key was shown once and is not shown again." } : {})
          })
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
          htmlPage(KeyPages.keys(viewerOf(session), records, { problem: `Not created: ${problem}.` }), status)
        )
      // Read-only unless the form's box grants the webhooks permission.
      const permissions = field("webhooks") === "on" ? (["webhooks"] as const) : []
      return keys.create({ user: session.user, clientAddress }, field("name"), permissions).pipe(
        Effect.flatMap((created) =>
          Effect.flatMap(context, ({ origin }) =>
            ShownOnce.redirect(
              newKey,
              session.user.orgId,
              seeOther(KeyPages.newKeyPath),
              `${created.record.id}.${Redacted.value(created.key)}`,
              origin.secure
            )
          )
        ),
        Effect.catchTags({
          NotPermitted: () => Effect.succeed(forbidden(session)),
          KeyNameRejected: (rejected) => notCreated(rejected.message, 400),
          LiveKeyLimitReached: (refusal) => notCreated(liveKeyLimitMessage(refusal), 409)
        })
      )
    })
  )

  // The new key, once: the cookie is cleared by this answer, so a reload leads back to the list.
  yield* router.add(
    "GET",
    KeyPages.newKeyPath,
    signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        const { request, origin } = yield* context
        const carried = yield* ShownOnce.take(newKey, session.user.orgId, request, origin.secure)
        const [id = "", key = ""] = (carried.value ?? "").split(".")
        const records = yield* keys.list({ user: session.user, clientAddress })
        const record = records.find((candidate) => candidate.id === id && candidate.revokedAt === null)
        // Only a key of the session's organization, and one whose start matches, is shown.
        const answer =
          record === undefined || !key.startsWith(record.displayStart)
            ? seeOther(`${keysPath}?shown`)
            : htmlPage(
                KeyPages.keyCreated(viewerOf(session), {
                  key,
                  record,
                  namesakes: namesakes(record, records),
                  apiBase: `${origin.secure ? "https" : "http"}://${request.headers.host ?? "localhost"}`
                })
              )
        return yield* carried.clear(answer)
      })
    )
  )

  yield* router.add(
    "GET",
    "/dashboard/keys/:id",
    signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        const found = yield* usage.ofKey({ user: session.user, clientAddress }, (yield* HttpRouter.params).id ?? "")
        return found === undefined ? notFound : htmlPage(KeyPages.keyUsage(viewerOf(session), found))
      })
    )
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
          : htmlPage(KeyPages.confirmRevoke(viewerOf(session), key))
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
