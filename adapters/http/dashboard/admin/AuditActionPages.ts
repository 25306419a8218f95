/**
 * The dashboard actions of the audit log (`/dashboard/audit/actions`): who did what, on what, from
 * where, filtered by action and user (a GET form, so a filtered view is a link), 50 to a page with
 * keyset paging, and the same view as CSV. Users, keys and pairs are shown by name (`Names`), not
 * by id. Functions of what they show; preact escapes the text.
 */
import { html } from "htm/preact"
import {
  DashboardAction as Actions,
  type DashboardAction,
  type DashboardAuditEntry,
  type StoredDashboardAuditEntry
} from "../../../../core/accounts/ports/DashboardAuditLog.ts"
import type { TeamMember } from "../../../../core/accounts/ports/UserStore.ts"
import { page, type Viewer } from "../frame/Layout.ts"
import { alert, table, when } from "../frame/Parts.ts"
import { auditPath } from "./AuditPages.ts"

export const actionsPath = `${auditPath}/actions`
export const actionsCsvPath = `${auditPath}/actions.csv`

/** Ids as people know them: a user's address, a key's or a pair's name; the id itself otherwise. */
export type Names = (id: string) => string

/** The filters as the form and its links carry them: text as typed, empty when not set. */
export interface ActionFilterFields {
  readonly action: string
  readonly user: string
}

/** The address of the page (or its CSV) with these filters, continuing after a position when given. */
export const actionsLink = (
  path: string,
  filters: ActionFilterFields,
  before?: { readonly at: string; readonly sequence: number }
) => {
  const query = new URLSearchParams()
  if (filters.action !== "") query.set("action", filters.action)
  if (filters.user !== "") query.set("user", filters.user)
  if (before !== undefined) {
    query.set("before_at", before.at)
    query.set("before_seq", `${before.sequence}`)
  }
  const text = query.toString()
  return text === "" ? path : `${path}?${text}`
}

export const actionLabel = (action: DashboardAction) => action.replaceAll("_", " ")

/** The user who acted, as the page and the CSV name them; the service when it acted itself. */
export const actorName = (entry: DashboardAuditEntry, names: Names) =>
  entry.user === null ? "(no account)" : entry.user.userId === null ? "the service" : names(entry.user.userId)

export interface ActionsView {
  readonly filters: ActionFilterFields
  readonly members: ReadonlyArray<TeamMember>
  readonly entries: ReadonlyArray<StoredDashboardAuditEntry>
  readonly names: Names
  readonly next: string | undefined
  readonly continued: boolean
  readonly problem: string | undefined
}

const option = (value: string, label: string, selected: string) =>
  html`<option value=${value} selected=${value === selected}>${label}</option>`

const filterForm = (view: ActionsView) => html`
  <form method="get" action=${actionsPath} aria-label="Filter the dashboard actions">
    <div class="grid">
      <div>
        <label for="action">Action</label>
        <select id="action" name="action">
          ${option("", "Any", view.filters.action)}
          ${Actions.literals.map((action) => option(action, actionLabel(action), view.filters.action))}
        </select>
      </div>
      <div>
        <label for="user">User</label>
        <select id="user" name="user">
          ${option("", "Anyone", view.filters.user)}
          ${view.members.map((member) => option(member.id, member.email, view.filters.user))}
        </select>
      </div>
    </div>
    <button type="submit">Filter</button>
  </form>
`

const row = (names: Names) => (stored: StoredDashboardAuditEntry) => {
  const { entry } = stored
  return html`<tr>
    <td>${when(entry.at, "")}</td>
    <td>${actorName(entry, names)}</td>
    <td>${actionLabel(entry.action)}</td>
    <td>${entry.subject === null ? "" : names(entry.subject)}</td>
    <td>${entry.clientAddress ?? ""}</td>
  </tr>`
}

export const actions = (viewer: Viewer, view: ActionsView) =>
  page(
    "Dashboard actions",
    html`
      <h1>Dashboard actions</h1>
      <p><a href=${auditPath}>API requests</a> · <a href=${actionsLink(actionsCsvPath, view.filters)} download>Download as CSV</a></p>
      ${filterForm(view)} ${alert(view.problem)}
      ${table(
        `What people did in the dashboard, newest first${view.continued ? " (continued)" : ""}`,
        ["Time", "User", "Action", "On", "Client address"],
        view.entries.map(row(view.names))
      )}
      ${view.entries.length === 0 && view.problem === undefined ? html`<p>No action matches.</p>` : null}
      <nav aria-label="Pages">
        <ul>
          ${view.continued ? html`<li><a href=${actionsLink(actionsPath, view.filters)}>Newest</a></li>` : null}
          ${view.next === undefined ? null : html`<li><a href=${view.next} rel="next">Older actions</a></li>`}
        </ul>
      </nav>
    `,
    viewer
  )
