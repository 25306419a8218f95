/**
 * The views of the organization's receivables: the list with the API's filters (a GET form, so a
 * filtered list is a link) and keyset paging, and one receivable with its metadata and its
 * history as a timeline, newest first. Functions of what they show; preact escapes the text.
 */
import { html } from "htm/preact"
import type { Debtor, FieldValue, Receivable, Vendor } from "../../../core/domain/Resources.ts"
import { statuses } from "../../../core/domain/Status.ts"
import { page, type Viewer } from "./Layout.ts"
import { alert, when } from "./Parts.ts"

/** The list's filters as the form and its links carry them: text as typed, empty when not set. */
export interface ListFilters {
  readonly vendor: string
  readonly debtor: string
  readonly status: string
  readonly verifiedSince: string
}

export interface ListView {
  readonly filters: ListFilters
  readonly vendors: ReadonlyArray<Vendor>
  readonly debtors: ReadonlyArray<Debtor>
  readonly items: ReadonlyArray<Receivable>
  readonly totalCount: number
  /** The link to the next page, if there is one. */
  readonly next: string | undefined
  /** Whether this page follows another (it was asked for after an item). */
  readonly continued: boolean
  readonly problem: string | undefined
}

/** Minor units in the currency's own digits (cents for EUR, none for JPY). */
const amount = (cents: number, currency: string) => {
  const format = new Intl.NumberFormat("en", { style: "currency", currency })
  return format.format(cents / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2))
}

const select = (
  id: string,
  label: string,
  value: string,
  options: ReadonlyArray<{ readonly value: string; readonly label: string }>
) => html`
  <label for=${id}>${label}</label>
  <select id=${id} name=${id}>
    <option value="" selected=${value === ""}>Any</option>
    ${options.map((option) => html`<option value=${option.value} selected=${option.value === value}>${option.label}</option>`)}
  </select>
`

const filterForm = (view: ListView) => html`
  <form method="get" action="/dashboard/receivables" role="search" aria-label="Filter the receivables">
    <div class="grid">
      <div>${select(
        "vendor",
        "Vendor",
        view.filters.vendor,
        view.vendors.map((v) => ({ value: v.id, label: v.name }))
      )}</div>
      <div>${select(
        "debtor",
        "Debtor",
        view.filters.debtor,
        view.debtors.map((d) => ({ value: d.id, label: d.name }))
      )}</div>
      <div>${select(
        "status",
        "Status",
        view.filters.status,
        statuses.map((s) => ({ value: s, label: s }))
      )}</div>
      <div>
        <label for="verified_since">Verified since (date or date-time, UTC; empty for all)</label>
        <input id="verified_since" name="verified_since" type="text" value=${view.filters.verifiedSince} placeholder="2026-11-01" />
      </div>
    </div>
    <button type="submit">Filter</button>
  </form>
`

const row = (receivable: Receivable) => html`<tr>
  <th scope="row"><a href=${`/dashboard/receivables/${receivable.id}`}>${receivable.vendorReceivableId ?? receivable.id}</a></th>
  <td>${receivable.vendor.name}</td>
  <td>${receivable.debtor.name}</td>
  <td>${receivable.status}</td>
  <td class="number">${amount(receivable.amountCents, receivable.currency)}</td>
  <td>${receivable.dueDate ?? ""}</td>
  <td>${when(receivable.updatedAt, "")}</td>
</tr>`

export const list = (viewer: Viewer, view: ListView) =>
  page(
    "Receivables",
    html`
      <h1>Receivables</h1>
      ${filterForm(view)}
      ${
        view.totalCount === 0
          ? null
          : html`<p>
              <a href=${listPath(view.filters).replace("/dashboard/receivables", "/dashboard/receivables.csv")} download
                >Download these receivables as CSV</a
              >
            </p>`
      }
      ${alert(view.problem)}
      <table>
        <caption>${view.totalCount} receivables match, first detected first${view.continued ? " (continued)" : ""}</caption>
        <thead>
          <tr>
            <th scope="col">Receivable</th>
            <th scope="col">Vendor</th>
            <th scope="col">Debtor</th>
            <th scope="col">Status</th>
            <th scope="col">Amount</th>
            <th scope="col">Due</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>${view.items.map(row)}</tbody>
      </table>
      <nav aria-label="Pages">
        <ul>
          ${view.continued ? html`<li><a href=${listPath(view.filters)}>First page</a></li>` : null}
          ${view.next === undefined ? null : html`<li><a href=${view.next} rel="next">Next page</a></li>`}
        </ul>
      </nav>
    `,
    viewer
  )

/** The list's address with these filters, after an item when given. */
export const listPath = (filters: ListFilters, startingAfter?: string) => {
  const query = new URLSearchParams()
  if (filters.vendor !== "") query.set("vendor", filters.vendor)
  if (filters.debtor !== "") query.set("debtor", filters.debtor)
  if (filters.status !== "") query.set("status", filters.status)
  if (filters.verifiedSince !== "") query.set("verified_since", filters.verifiedSince)
  if (startingAfter !== undefined) query.set("starting_after", startingAfter)
  const text = query.toString()
  return text === "" ? "/dashboard/receivables" : `/dashboard/receivables?${text}`
}

const shown = (value: FieldValue) => (value === null ? "(none)" : String(value))

export const detail = (viewer: Viewer, receivable: Receivable) => {
  const title = `Receivable ${receivable.vendorReceivableId ?? receivable.id}`
  const metadata = Object.entries(receivable.metadata ?? {})
  return page(
    title,
    html`
      <h1>${title}</h1>
      <dl>
        <dt>Id</dt><dd><code>${receivable.id}</code></dd>
        <dt>Vendor</dt><dd>${receivable.vendor.name}</dd>
        <dt>Debtor</dt><dd>${receivable.debtor.name}</dd>
        <dt>Status</dt><dd>${receivable.status} (the portal says “${receivable.portalStatus}”)</dd>
        <dt>Amount</dt><dd>${amount(receivable.amountCents, receivable.currency)}</dd>
        <dt>Dated</dt><dd>${receivable.receivableDate}</dd>
        <dt>Due</dt><dd>${receivable.dueDate ?? "(none)"}</dd>
        <dt>PO number</dt><dd>${receivable.poNumber ?? "(none)"}</dd>
        <dt>Detected</dt><dd>${when(receivable.detectedAt, "")}</dd>
        <dt>Next update</dt><dd>${when(receivable.estimatedNextUpdateAt, "none scheduled")}</dd>
      </dl>
      <section aria-labelledby="history-heading">
        <h2 id="history-heading">History, newest first</h2>
        <ol class="timeline">
          ${(receivable.history ?? []).map(
            (entry) => html`<li>
              ${when(entry.changedAt, "")}
              <ul>
                ${Object.entries(entry.changes).map(
                  ([field, change]) => html`<li><code>${field}</code>: ${shown(change.from)} → ${shown(change.to)}</li>`
                )}
              </ul>
            </li>`
          )}
        </ol>
        ${(receivable.history ?? []).length === 0 ? html`<p>No change since it was detected.</p>` : null}
      </section>
      <section aria-labelledby="metadata-heading">
        <h2 id="metadata-heading">Metadata from the portal</h2>
        ${
          metadata.length === 0
            ? html`<p>None.</p>`
            : html`<dl>${metadata.map(([key, value]) => html`<dt><code>${key}</code></dt><dd>${value}</dd>`)}</dl>`
        }
      </section>
      <p><a href="/dashboard/receivables">All receivables</a></p>
    `,
    viewer
  )
}
