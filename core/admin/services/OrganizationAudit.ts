/**
 * The organization's audit trail as its admins read it in the dashboard: the API requests (the
 * `AuditLog`) and what people did in the dashboard (the `DashboardAuditLog`), each searched
 * with filters a page at a time. Admins only: a member is refused, whatever the request. Every read is of
 * the user's own organization; a key filter must name one of its keys. Depends on effect and
 * the core alone.
 */
import { Context, DateTime, Duration, Effect, Layer } from "effect"
import { AuditLog, type AuditPosition, type AuditSearch, type StoredAuditEntry } from "../../access/ports/AuditLog.ts"
import {
  DashboardAuditLog,
  type DashboardAuditPosition,
  type DashboardAuditSearch,
  type StoredDashboardAuditEntry
} from "../../accounts/ports/DashboardAuditLog.ts"
import type { Actor } from "../../accounts/services/Accounts.ts"
import type { ApiKeyId } from "../../shared/domain/Ids.ts"
import { KeyAdministration, NotPermitted } from "./KeyAdministration.ts"

/** Requests per page. */
export const requestsPerPage = 50
/** Dashboard actions per page. */
export const actionsPerPage = 50

/** Which dashboard actions the user asked for, and from where on. */
export type ActionFilters = Omit<DashboardAuditSearch, "orgId" | "limit">

export interface ActionPage {
  readonly entries: ReadonlyArray<StoredDashboardAuditEntry>
  /** Where the next page starts, when there is one. */
  readonly next: DashboardAuditPosition | undefined
}
/** The window searched when the user sets no start: the log's recent past, a few partitions. */
export const defaultWindow = Duration.days(30)

/** What the user asked for; the organization is always the user's own. */
export type RequestFilters = Omit<AuditSearch, "orgId" | "since" | "until" | "limit" | "keyId"> & {
  readonly keyId?: string | undefined
  readonly since?: DateTime.Utc | undefined
  readonly until?: DateTime.Utc | undefined
}

export interface RequestPage {
  readonly entries: ReadonlyArray<StoredAuditEntry>
  /** Where the next page (older entries) starts, when there is one. */
  readonly next: AuditPosition | undefined
  /** Where the previous page (newer entries) starts, after this position, when there is one. */
  readonly previous: AuditPosition | undefined
  readonly since: DateTime.Utc
  readonly until: DateTime.Utc
}

export class OrganizationAudit extends Context.Service<
  OrganizationAudit,
  {
    /** A page of the organization's API requests, newest first; none for a key not of the organization. */
    readonly requests: (
      actor: Actor,
      filters: RequestFilters,
      pageSize?: number
    ) => Effect.Effect<RequestPage, NotPermitted>
    /** A page of the organization's dashboard actions, newest first (`pageSize` of them). */
    readonly actions: (
      actor: Actor,
      filters: ActionFilters,
      pageSize?: number
    ) => Effect.Effect<ActionPage, NotPermitted>
  }
>()("core/OrganizationAudit") {
  static readonly layer = Layer.effect(
    OrganizationAudit,
    Effect.gen(function* () {
      const audit = yield* AuditLog
      const dashboardAudit = yield* DashboardAuditLog
      const keys = yield* KeyAdministration

      const adminOnly = (actor: Actor) =>
        actor.user.role === "admin" ? Effect.void : Effect.fail(new NotPermitted({ action: "read the audit log" }))

      const requests = Effect.fn("OrganizationAudit.requests")(function* (
        actor: Actor,
        filters: RequestFilters,
        pageSize: number = requestsPerPage
      ) {
        yield* adminOnly(actor)
        const now = yield* DateTime.now
        // A minute ahead, so entries of requests just answered are inside an open-ended window.
        const until = filters.until ?? DateTime.add(now, { minutes: 1 })
        const since = filters.since ?? DateTime.subtractDuration(until, defaultWindow)
        const empty = { entries: [], next: undefined, previous: undefined, since, until }
        let keyId: ApiKeyId | undefined
        if (filters.keyId !== undefined) {
          const key = yield* keys.find(actor, filters.keyId)
          if (key === undefined) return empty
          keyId = key.id
        }
        // One more than a page: whether it comes tells whether there is a next page.
        const found = yield* audit.search({
          ...filters,
          orgId: actor.user.orgId,
          keyId,
          since,
          until,
          limit: pageSize + 1
        })
        const more = found.length > pageSize
        if (filters.after !== undefined) {
          // Going to newer entries: the one more is the newest, beyond this page; the entry the
          // page follows is older, so an older page is there whenever this one is not empty.
          const entries = more ? found.slice(1) : found
          return {
            entries,
            next: entries.at(-1)?.position,
            previous: more ? entries[0]?.position : undefined,
            since,
            until
          }
        }
        const entries = found.slice(0, pageSize)
        return {
          entries,
          next: more ? entries.at(-1)?.position : undefined,
          // A page that continues from an older position has newer entries before it.
          previous: filters.before === undefined ? undefined : entries[0]?.position,
          since,
          until
        }
      })

      const actions = Effect.fn("OrganizationAudit.actions")(function* (
        actor: Actor,
        filters: ActionFilters,
        pageSize: number = actionsPerPage
      ) {
        yield* adminOnly(actor)
        // One more than a page: whether it comes tells whether there is a next page.
        const found = yield* dashboardAudit.search({ ...filters, orgId: actor.user.orgId, limit: pageSize + 1 })
        const entries = found.slice(0, pageSize)
        return { entries, next: found.length > pageSize ? entries.at(-1)?.position : undefined } satisfies ActionPage
      })

      return OrganizationAudit.of({ requests, actions })
    })
  )
}
