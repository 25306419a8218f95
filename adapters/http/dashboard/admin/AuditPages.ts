/**
 * The audit page: the organization's API requests with their filters (a GET form, so a filtered
 * view is a link) and keyset paging, a link to the same view as CSV and one to what people did in
 * the dashboard (`AuditActionPages.ts`). Functions
 * of what they show; preact escapes the text. A key is named, never shown: the log holds none.
 */
import { html } from "htm/preact"
import type { ApiKeyRecord } from "../../../../core/access/ports/ApiKeyStore.ts"
import type { StoredAuditEntry } from "../../../../core/access/ports/AuditLog.ts"
import { page, type Viewer } from "../frame/Layout.ts"
import { alert, table, when } from "../frame/Parts.ts"

export const auditPath = "/dashboard/audit"

/** The filters as the form and its links carry them: text as typed, empty when not set. */
export interface AuditFilters {
  readonly key: string
  readonly status: string
  readonly path: string
  readonly match: string
  readonly from: string
  readonly to: string
  readonly requestId: string
}

export interface AuditView {
  readonly filters: AuditFilters
  readonly keys: ReadonlyArray<ApiKeyRecord>
  readonly requests: ReadonlyArray<StoredAuditEntry>
  /** The window searched, as a sentence. */
  readonly window: string
  readonly next: string | undefined
  /** The page of newer entries, when this one is not the newest. */
  readonly previous: string | undefined
  readonly continued: boolean
  readonly problem: string | undefined
}

export const requestsCsvPath = `${auditPath}/requests.csv`

/**
 * The page's address (or its CSV's) with these filters, continuing from a position when given:
 * to older entries (before it) or newer ones (after it).
 */
export const auditLink = (
  filters: AuditFilters,
  from?: { readonly at: string; readonly sequence: number; readonly direction: "before" | "after" },
  path = auditPath
) => {
  const query = new URLSearchParams()
  const fields = [
    ["key", filters.key],
    ["status", filters.status],
    ["path", filters.path],
    ["match", filters.path === "" ? "" : filters.match],
    ["from", filters.from],
    ["to", filters.to],
    ["request_id", filters.requestId]
  ] as const
  for (const [name, value] of fields) if (value !== "") query.set(name, value)
  if (from !== undefined) {
    query.set(`${from.direction}_at`, from.at)
    query.set(`${from.direction}_seq`, `${from.sequence}`)
  }
  const text = query.toString()
  return text === "" ? path : `${path}?${text}`
}

const option = (value: string, label: string, selected: string) =>
  html`<option value=${value} selected=${value === selected}>${label}</option>`

const filterForm = (view: AuditView) => {
  const { filters } = view
  return html`
    <form method="get" action=${auditPath} aria-label="Filter the requests">
      <div class="grid">
        <div>
          <label for="key">Key</label>
          <select id="key" name="key">
            ${option("", "Any", filters.key)}
            ${view.keys.map((key) => option(key.id, `${key.name} (${key.displayStart}…)`, filters.key))}
          </select>
        </div>
        <div>
          <label for="status">Status</label>
          <select id="status" name="status">
            ${["", "2xx", "3xx", "4xx", "5xx"].map((value) => option(value, value === "" ? "Any" : value, filters.status))}
          </select>
        </div>
        <div>
          <label for="request_id">Request id</label>
          <input id="request_id" name="request_id" type="search" value=${filters.requestId} />
        </div>
      </div>
      <div class="grid">
        <div>
          <label for="path">Path</label>
          <input id="path" name="path" type="text" value=${filters.path} placeholder="/v1/receivables" />
        </div>
        <div>
          <label for="match">Path matches</label>
          <select id="match" name="match">
            ${option("prefix", "Starting with", filters.match)} ${option("exact", "Exactly", filters.match)}
          </select>
        </div>
      </div>
      <div class="grid">
        <div>
          <label for="from">From (UTC)</label>
          <input id="from" name="from" type="datetime-local" value=${filters.from} />
        </div>
        <div>
          <label for="to">To (UTC, before)</label>
          <input id="to" name="to" type="datetime-local" value=${filters.to} />
        </div>
      </div>
      <button type="submit">Filter</button>
    </form>
  `
}

const requestRow = (keys: ReadonlyArray<ApiKeyRecord>) => (item: StoredAuditEntry) => {
  const { entry } = item
  const key = entry.keyId === null ? undefined : keys.find((candidate) => candidate.id === entry.keyId)
  return html`<tr>
    <td>${when(entry.at, "")}</td>
    <td>${entry.method}</td>
    <td class="secret">${entry.path}</td>
    <td>${entry.status}</td>
    <td>${entry.keyId === null ? "none" : (key?.name ?? "a deleted key")}</td>
    <td class="secret">${entry.requestId}</td>
    <td class="number">${entry.durationMs.toFixed(1)} ms</td>
    <td>${entry.clientAddress ?? ""}</td>
  </tr>`
}

export const audit = (viewer: Viewer, view: AuditView) =>
  page(
    "Audit log",
    html`
      <h1>Audit log</h1>
      <p>
        <a href="/dashboard/audit/actions">Dashboard actions</a> · <a href=${auditLink(view.filters, undefined, requestsCsvPath)} download>Download these requests as CSV</a>
      </p>
      <section aria-labelledby="requests-heading">
        <h2 id="requests-heading">API requests</h2>
        ${filterForm(view)}
        ${alert(view.problem)}
        ${table(
          `Requests ${view.window}, newest first${view.continued ? " (continued)" : ""}`,
          ["Time", "Method", "Path", "Status", "Key", "Request id", "Duration", "Client address"],
          view.requests.map(requestRow(view.keys)),
          [6]
        )}
        ${view.requests.length === 0 && view.problem === undefined ? html`<p>No request matches.</p>` : null}
        <nav aria-label="Pages">
          <ul>
            ${view.continued ? html`<li><a href=${auditLink(view.filters)}>Newest</a></li>` : null}
            ${view.previous === undefined ? null : html`<li><a href=${view.previous} rel="prev">Newer requests</a></li>`}
            ${view.next === undefined ? null : html`<li><a href=${view.next} rel="next">Older requests</a></li>`}
          </ul>
        </nav>
      </section>
    `,
    viewer,
    { current: "/dashboard/audit" }
  )
