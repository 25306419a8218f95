/**
 * The audit page (`/dashboard/audit`) over the core's `OrganizationAudit`: the filters arrive as a
 * GET form's query; a value that cannot be read is shown as a problem (400), never guessed. The
 * same filters export every matching request as CSV (`requests.csv`, streamed page by page); the
 * dashboard actions are `AuditActionRoutes.ts`'s.
 * Admins only: the core refuses a member, and so does the answer (403). Never storage.
 */
import { DateTime, Effect, Option } from "effect"
import { type HttpRouter, HttpServerRequest } from "effect/http"
import type { AuditPosition, StatusClass } from "../../../../core/access/ports/AuditLog.ts"
import { KeyAdministration } from "../../../../core/admin/services/KeyAdministration.ts"
import { OrganizationAudit, type RequestFilters } from "../../../../core/admin/services/OrganizationAudit.ts"
import * as Csv from "../frame/Csv.ts"
import { type Guarded, type Guards, htmlPage, queryOf, viewerOf } from "../frame/Handlers.ts"
import * as Pages from "../frame/Pages.ts"
import * as AuditActionRoutes from "./AuditActionRoutes.ts"
import { type AuditFilters, auditLink, audit as auditPage, auditPath, requestsCsvPath } from "./AuditPages.ts"

const statusClasses = new Map<string, StatusClass>([
  ["2xx", 2],
  ["3xx", 3],
  ["4xx", 4],
  ["5xx", 5]
])

/** A `datetime-local` field's text (minutes, perhaps seconds), read as UTC; or a full ISO instant. */
const instantOf = (text: string) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z)?$/.test(text)
    ? DateTime.make(text.endsWith("Z") ? text : `${text}Z`)
    : Option.none()

type Read = { readonly filters: RequestFilters } | { readonly problem: string }

/** The core's filters from the form's, or what is wrong with them in the words the page shows. */
/** A page's position from the query's two fields; undefined when neither is set. */
const positionOf = (at: string, sequence: string): AuditPosition | undefined | "unknown" => {
  if (at === "" && sequence === "") return undefined
  const instant = instantOf(at)
  if (Option.isNone(instant) || !/^\d{1,15}$/.test(sequence)) return "unknown"
  return { at: instant.value, sequence: Number(sequence) }
}

const read = (
  form: AuditFilters,
  before: AuditPosition | undefined | "unknown",
  after: AuditPosition | undefined | "unknown"
): Read => {
  const statusClass = statusClasses.get(form.status)
  if (form.status !== "" && statusClass === undefined) return { problem: "The status is not 2xx, 3xx, 4xx or 5xx." }
  if (form.path !== "" && form.match !== "prefix" && form.match !== "exact") {
    return { problem: "A path matches exactly or by its start." }
  }
  const since = form.from === "" ? Option.none() : instantOf(form.from)
  const until = form.to === "" ? Option.none() : instantOf(form.to)
  if (form.from !== "" && Option.isNone(since)) return { problem: "“From” is not a date and time (2026-11-24T08:00)." }
  if (form.to !== "" && Option.isNone(until)) return { problem: "“To” is not a date and time (2026-11-24T18:00)." }
  if (before === "unknown" || after === "unknown" || (before !== undefined && after !== undefined)) {
    return { problem: "The page to continue from is unknown." }
  }
  return {
    filters: {
      keyId: form.key === "" ? undefined : form.key,
      statusClass,
      path: form.path === "" ? undefined : { value: form.path, match: form.match === "exact" ? "exact" : "prefix" },
      requestId: form.requestId === "" ? undefined : form.requestId,
      since: Option.getOrUndefined(since),
      until: Option.getOrUndefined(until),
      before,
      after
    }
  }
}

/** Rows read per query while a CSV is written. */
const csvPageSize = 500

const minute = (instant: DateTime.Utc) => DateTime.formatIso(instant).slice(0, 16).replace("T", " ")

export const register = Effect.fnUntraced(function* (router: HttpRouter.HttpRouter, guards: Guards) {
  const auditService = yield* OrganizationAudit
  const keys = yield* KeyAdministration

  /** The form's filters from the request's query, as typed. */
  const formOf = (query: URLSearchParams) => {
    const field = (name: string) => (query.get(name) ?? "").trim()
    const form: AuditFilters = {
      key: field("key"),
      status: field("status"),
      path: field("path"),
      match: field("match") === "" ? "prefix" : field("match"),
      from: field("from"),
      to: field("to"),
      requestId: field("request_id")
    }
    return {
      form,
      parsed: read(
        form,
        positionOf(field("before_at"), field("before_seq")),
        positionOf(field("after_at"), field("after_seq"))
      ),
      continued: field("before_at") !== "" || field("after_at") !== ""
    }
  }

  const forbidden = (session: Guarded) =>
    htmlPage(
      Pages.refusal("Not allowed", "Only an admin of your organization can read the audit log.", viewerOf(session)),
      403
    )

  yield* router.add(
    "GET",
    auditPath,
    guards.signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        const actor = { user: session.user, clientAddress }
        const viewer = viewerOf(session)
        const { form, parsed, continued } = formOf(queryOf(yield* HttpServerRequest.HttpServerRequest))
        return yield* Effect.gen(function* () {
          const orgKeys = yield* keys.list(actor)
          const view = { filters: form, keys: orgKeys, continued }
          if ("problem" in parsed) {
            if (session.user.role !== "admin") return forbidden(session)
            return htmlPage(
              auditPage(viewer, {
                ...view,
                requests: [],
                window: "",
                next: undefined,
                previous: undefined,
                problem: parsed.problem
              }),
              400
            )
          }
          const found = yield* auditService.requests(actor, parsed.filters)
          const linkTo = (direction: "before" | "after", position: AuditPosition | undefined) =>
            position === undefined
              ? undefined
              : auditLink(form, { at: DateTime.formatIso(position.at), sequence: position.sequence, direction })
          const next = linkTo("before", found.next)
          const previous = linkTo("after", found.previous)
          return htmlPage(
            auditPage(viewer, {
              ...view,
              requests: found.entries,
              window: `from ${minute(found.since)} to ${minute(found.until)} UTC`,
              next,
              previous,
              problem: undefined
            })
          )
        }).pipe(Effect.catchTag("NotPermitted", () => Effect.succeed(forbidden(session))))
      })
    )
  )

  // The requests the page's filters select, every page of them, as CSV.
  yield* router.add(
    "GET",
    requestsCsvPath,
    guards.signedIn((session, clientAddress) =>
      Effect.gen(function* () {
        const actor = { user: session.user, clientAddress }
        const { parsed } = formOf(queryOf(yield* HttpServerRequest.HttpServerRequest))
        if ("problem" in parsed) return htmlPage(Pages.refusal("Not exported", parsed.problem, viewerOf(session)), 400)
        const orgKeys = yield* keys.list(actor)
        const keyName = (id: string | null) =>
          id === null ? "" : (orgKeys.find((key) => key.id === id)?.name ?? "a deleted key")
        // Before the answer starts: a member gets a 403, not an empty file (the core refuses too).
        if (session.user.role !== "admin") return forbidden(session)
        return Csv.download(
          "audit-requests.csv",
          // A key by its name and its id: names repeat (a rotated key often keeps its name).
          ["time", "method", "path", "query", "status", "key", "key_id", "request_id", "duration_ms", "client_address"],
          parsed.filters,
          (filters) =>
            auditService.requests(actor, filters, csvPageSize).pipe(
              Effect.orDie,
              Effect.map((found) => [
                found.entries.map(({ entry }) => [
                  DateTime.formatIso(entry.at),
                  entry.method,
                  entry.path,
                  entry.query,
                  entry.status,
                  keyName(entry.keyId),
                  entry.keyId,
                  entry.requestId,
                  entry.durationMs,
                  entry.clientAddress
                ]),
                found.next === undefined
                  ? Option.none()
                  : Option.some({ ...filters, since: found.since, until: found.until, before: found.next })
              ])
            )
        )
      })
    )
  )

  yield* AuditActionRoutes.register(router, guards)
})
