/**
 * The dashboard actions of the audit log (`/dashboard/audit/actions`, and the same view as CSV)
 * over the core's `OrganizationAudit`: filtered by action and user, a page at a time, with users,
 * keys and pairs named. Admins only: the core refuses a member, and so does the answer (403).
 */
import { DateTime, Effect, Option } from "effect"
import { type HttpRouter, HttpServerRequest } from "effect/http"
import {
  DashboardAction as Actions,
  type DashboardAction,
  type DashboardAuditPosition
} from "../../../../core/accounts/ports/DashboardAuditLog.ts"
import type { Actor } from "../../../../core/accounts/services/Accounts.ts"
import { IntegrationAdministration } from "../../../../core/admin/services/IntegrationAdministration.ts"
import { KeyAdministration } from "../../../../core/admin/services/KeyAdministration.ts"
import { type ActionFilters, OrganizationAudit } from "../../../../core/admin/services/OrganizationAudit.ts"
import { Team } from "../../../../core/admin/services/Team.ts"
import type { UserId } from "../../../../core/shared/domain/Ids.ts"
import * as Csv from "../frame/Csv.ts"
import { type Guarded, type Guards, htmlPage, queryOf, viewerOf } from "../frame/Handlers.ts"
import * as Pages from "../frame/Pages.ts"
import {
  type ActionFilterFields,
  actionLabel,
  actionsCsvPath,
  actionsLink,
  actions as actionsPage,
  actionsPath,
  actorName,
  type Names
} from "./AuditActionPages.ts"

/** Rows read per query while a CSV is written. */
const csvPageSize = 500

const isAction = (text: string): text is DashboardAction => Actions.literals.some((action) => action === text)

type Read = { readonly filters: ActionFilters } | { readonly problem: string }

const read = (query: URLSearchParams): { fields: ActionFilterFields; read: Read; continued: boolean } => {
  const field = (name: string) => (query.get(name) ?? "").trim()
  const fields = { action: field("action"), user: field("user") }
  const continued = field("before_at") !== ""
  if (fields.action !== "" && !isAction(fields.action)) {
    return { fields, continued, read: { problem: "There is no such action." } }
  }
  let before: DashboardAuditPosition | undefined
  if (field("before_at") !== "" || field("before_seq") !== "") {
    const at = DateTime.make(field("before_at"))
    if (Option.isNone(at) || !/^\d{1,15}$/.test(field("before_seq"))) {
      return { fields, continued, read: { problem: "The page to continue from is unknown." } }
    }
    before = { at: at.value, sequence: Number(field("before_seq")) }
  }
  return {
    fields,
    continued,
    read: {
      filters: {
        action: fields.action === "" ? undefined : (fields.action as DashboardAction),
        userId: fields.user === "" ? undefined : (fields.user.toLowerCase() as UserId),
        before
      }
    }
  }
}

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const auditService = yield* OrganizationAudit
  const keys = yield* KeyAdministration
  const team = yield* Team
  const integrations = yield* IntegrationAdministration

  const forbidden = (session: Guarded) =>
    htmlPage(
      Pages.refusal("Not allowed", "Only an admin of your organization can read the audit log.", viewerOf(session)),
      403
    )

  /** The organization's users, keys and pairs by id, as the log names them. */
  const namesFor = (actor: Actor) =>
    Effect.map(
      Effect.all([team.members(actor), keys.list(actor), integrations.list(actor)], { concurrency: "unbounded" }),
      ([members, orgKeys, pairs]) => {
        const byId = new Map<string, string>([
          ...members.map(
            (member) => [member.id, member.removedAt === null ? member.email : `${member.email} (removed)`] as const
          ),
          ...orgKeys.map((key) => [key.id, `key “${key.name}” (${key.displayStart}…)`] as const),
          ...pairs.map((pair) => [pair.id, `pair ${pair.vendor.name} / ${pair.debtor.name}`] as const)
        ])
        return { members, names: ((id: string) => byId.get(id.toLowerCase()) ?? id) satisfies Names }
      }
    )

  yield* router.add(
    "GET",
    actionsPath,
    guards.signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        const actor = { user: session.user, clientAddress }
        const { fields, read: parsed, continued } = read(queryOf(yield* HttpServerRequest.HttpServerRequest))
        const { members, names } = yield* namesFor(actor)
        const view = { filters: fields, members, names, continued }
        if ("problem" in parsed) {
          return htmlPage(
            actionsPage(viewerOf(session), { ...view, entries: [], next: undefined, problem: parsed.problem }),
            400
          )
        }
        const found = yield* auditService.actions(actor, parsed.filters)
        const next =
          found.next === undefined
            ? undefined
            : actionsLink(actionsPath, fields, { at: DateTime.formatIso(found.next.at), sequence: found.next.sequence })
        return htmlPage(actionsPage(viewerOf(session), { ...view, entries: found.entries, next, problem: undefined }))
      }).pipe(Effect.catchTag("NotPermitted", () => Effect.succeed(forbidden(session))))
    )
  )

  yield* router.add(
    "GET",
    actionsCsvPath,
    guards.signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        const actor = { user: session.user, clientAddress }
        const { read: parsed } = read(queryOf(yield* HttpServerRequest.HttpServerRequest))
        if ("problem" in parsed) return htmlPage(Pages.refusal("Not exported", parsed.problem, viewerOf(session)), 400)
        // Named before the answer starts, which also refuses a member (403), not with an empty file.
        const { names } = yield* namesFor(actor)
        return Csv.download(
          "dashboard-actions.csv",
          ["time", "user", "action", "on", "client_address"],
          parsed.filters,
          (filters) =>
            auditService.actions(actor, filters, csvPageSize).pipe(
              Effect.orDie,
              Effect.map((found) => [
                found.entries.map(({ entry }) => [
                  DateTime.formatIso(entry.at),
                  actorName(entry, names),
                  actionLabel(entry.action),
                  entry.subject === null ? null : names(entry.subject),
                  entry.clientAddress
                ]),
                found.next === undefined ? Option.none() : Option.some({ ...filters, before: found.next })
              ])
            )
        )
      }).pipe(Effect.catchTag("NotPermitted", () => Effect.succeed(forbidden(session))))
    )
  )
})
