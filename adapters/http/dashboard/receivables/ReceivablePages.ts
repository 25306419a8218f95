/**
 * The views of the organization's receivables: the list with a search box (invoice number, PO
 * number or id, whole or its start), the API's filters and sortable columns (a GET form and
 * links, so a found list is a link, carried to a receivable and back), numbered pages; and one
 * receivable with its metadata and its history as a timeline, newest first, in plain words.
 * Functions of what they show; preact escapes the text.
 */
import { html } from "htm/preact"
import type { Debtor, FieldValue, Receivable, Vendor } from "../../../../core/receivables/domain/Resources.ts"
import { statuses } from "../../../../core/receivables/domain/Status.ts"
import { type SortKey, sortKeys } from "../../../../core/receivables/ports/ReceivableSearch.ts"
import { page, type Viewer } from "../frame/Layout.ts"
import { alert, counted, formatMoney, money, pager, statusBadge, table, when } from "../frame/Parts.ts"

/** The list's query as the form and its links carry it: text as typed, empty when not set. */
export interface ListFilters {
  readonly text: string
  readonly vendor: string
  readonly debtor: string
  readonly status: string
  readonly verifiedSince: string
  /** A sort key, or empty for the default (newest detected first). */
  readonly sort: string
  /** `asc` or `desc`; empty for the key's natural direction (`desc`). */
  readonly order: string
  readonly page: string
}

export const noFilters: ListFilters = {
  text: "",
  vendor: "",
  debtor: "",
  status: "",
  verifiedSince: "",
  sort: "",
  order: "",
  page: ""
}

const parameters: ReadonlyArray<readonly [keyof ListFilters, string]> = [
  ["text", "q"],
  ["vendor", "vendor"],
  ["debtor", "debtor"],
  ["status", "status"],
  ["verifiedSince", "verified_since"],
  ["sort", "sort"],
  ["order", "order"],
  ["page", "page"]
]

/** The list's query from a query string; unknown parameters are ignored. */
export const filtersOf = (query: URLSearchParams): ListFilters =>
  Object.fromEntries(
    parameters.map(([field, name]) => [field, (query.get(name) ?? "").trim()])
  ) as unknown as ListFilters

/** The list's address with this query: only what is set, so the plain list is `/dashboard/receivables`. */
export const listPath = (filters: ListFilters) => {
  const query = new URLSearchParams()
  for (const [field, name] of parameters) if (filters[field] !== "") query.set(name, filters[field])
  const text = query.toString()
  return text === "" ? "/dashboard/receivables" : `/dashboard/receivables?${text}`
}

/** The list's CSV download, in the list's order; with metadata, a last column of it as JSON. */
const exportPath = (filters: ListFilters, metadata: boolean) => {
  const path = listPath(filters).replace("/dashboard/receivables", "/dashboard/receivables.csv")
  return metadata ? `${path}${path.includes("?") ? "&" : "?"}metadata=1` : path
}

export interface ListView {
  readonly filters: ListFilters
  readonly vendors: ReadonlyArray<Vendor>
  readonly debtors: ReadonlyArray<Debtor>
  readonly items: ReadonlyArray<Receivable>
  readonly totalCount: number
  readonly page: number
  readonly pageSize: number
  /** What is wrong with the query: then nothing was searched, and the page says so. */
  readonly problem: string | undefined
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

// A `<search>` landmark around a plain form: Pico draws `role="search"` forms as one rounded
// group of joined controls, which suits a single search box, not a grid of filters.
const filterForm = (view: ListView, order = orderOf(view.filters)) => html`
  <search aria-label="Find receivables">
    <form method="get" action="/dashboard/receivables" class="filters">
      <label for="q">Invoice number, PO number or receivable id (whole, or how it starts)</label>
      <input id="q" name="q" type="search" value=${view.filters.text} maxlength="100" autocomplete="off" />
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
          <label for="verified_since">Changed since (UTC)</label>
          <input id="verified_since" name="verified_since" type="date" value=${view.filters.verifiedSince} />
        </div>
      </div>
      <div class="grid">
        <div>
          <label for="sort">Sorted by</label>
          <select id="sort" name="sort">
            ${sortKeys.map((key) => html`<option value=${key} selected=${order.key === key}>${sortNames[key]}</option>`)}
          </select>
        </div>
        <div>
          <label for="order">Order</label>
          <select id="order" name="order">
            <option value="desc" selected=${order.descending}>Newest or largest first</option>
            <option value="asc" selected=${!order.descending}>Oldest or smallest first</option>
          </select>
        </div>
      </div>
      <div class="actions">
        <button type="submit">Find</button>
        <a href="/dashboard/receivables" role="button" class="secondary outline">Clear filters</a>
      </div>
    </form>
  </search>
`

/** What each sort key is called on the page. */
const sortNames: Record<SortKey, string> = {
  detected: "Detected",
  updated: "Updated",
  amount: "Amount",
  due: "Due"
}

/** The order the list is in: the default is the newest detected first. */
export const orderOf = (filters: ListFilters): { readonly key: SortKey; readonly descending: boolean } => ({
  key: (sortKeys as ReadonlyArray<string>).includes(filters.sort) ? (filters.sort as SortKey) : "detected",
  descending: filters.order !== "asc"
})

// A sort key's link: to the list ordered by it, the other way round when it already is.
const sortLink = (filters: ListFilters, key: SortKey) => {
  const current = orderOf(filters)
  const active = current.key === key
  const descending = active ? !current.descending : true
  const href = listPath({ ...filters, sort: key, order: descending ? "desc" : "asc", page: "" })
  return html`<a href=${href}>${sortNames[key]}${active ? (current.descending ? " ↓" : " ↑") : ""}</a>`
}

// A column's heading with the links of the keys it is sorted by, marked when the list is.
const sortHeading = (filters: ListFilters, label: string, keys: ReadonlyArray<SortKey>, numeric = false) => {
  const current = orderOf(filters)
  const sorted = keys.includes(current.key) ? (current.descending ? "descending" : "ascending") : undefined
  const links = keys.map((key, i) => html`${i === 0 ? "" : ", "}${sortLink(filters, key)}`)
  return {
    label,
    heading: html`<th scope="col" class=${numeric ? "number" : undefined} aria-sort=${sorted}>${
      keys.length === 1 ? links : html`${label}: ${links}`
    }</th>`
  }
}

// Five columns where there were eight, so that the list fits a laptop's window: the debtor under
// the vendor, and the three dates in one cell, each named.
const columns = (filters: ListFilters) => [
  "Invoice",
  "Vendor, debtor",
  "Status",
  sortHeading(filters, "Amount", ["amount"], true),
  sortHeading(filters, "Dates", ["due", "detected", "updated"])
]

const row = (receivable: Receivable, back: string) => html`<tr>
  <th scope="row"><a href=${`/dashboard/receivables/${receivable.id}${back}`}>${receivable.vendorReceivableId ?? receivable.id}</a></th>
  <td>${receivable.vendor.name}<span class="sub">to ${receivable.debtor.name}</span></td>
  <td>${statusBadge(receivable.status)}</td>
  <td class="number">${money(receivable.amountCents, receivable.currency)}</td>
  <td>
    <span class="line">Due <span class="nowrap">${receivable.dueDate ?? "(none)"}</span></span>
    <span class="line">Detected ${when(receivable.detectedAt, "")}</span>
    <span class="line">Updated ${when(receivable.updatedAt, "")}</span>
  </td>
</tr>`

const summary = (view: ListView) => {
  if (view.totalCount === 0) return "No receivable matches"
  const first = (view.page - 1) * view.pageSize + 1
  const last = Math.min(view.page * view.pageSize, view.totalCount)
  const found = `${counted(view.totalCount, "receivable")} ${view.totalCount === 1 ? "matches" : "match"}`
  return first > view.totalCount ? `${found}; this page is past the end` : `${found}; ${first} to ${last} shown`
}

const pages = (view: ListView) => {
  const at = (n: number) => listPath({ ...view.filters, page: n === 1 ? "" : String(n) })
  return pager(view.page, Math.max(1, Math.ceil(view.totalCount / view.pageSize)), at)
}

const results = (view: ListView) => {
  const back = listPath(view.filters).split("?")[1]
  const from = back === undefined ? "" : `?${new URLSearchParams({ from: back }).toString()}`
  return html`
    ${table(
      summary(view),
      columns(view.filters),
      view.items.map((receivable) => row(receivable, from))
    )}
    ${view.totalCount === 0 ? html`<p>Nothing matches this search. <a href="/dashboard/receivables">Clear filters</a> to see every receivable.</p>` : pages(view)}
  `
}

export const list = (viewer: Viewer, view: ListView) =>
  page(
    "Receivables",
    html`
      <h1>Receivables</h1>
      ${filterForm(view)}
      ${
        view.problem === undefined
          ? html`${
              view.totalCount === 0
                ? null
                : html`<p>
                    <a href=${exportPath(view.filters, false)} download role="button" class="secondary outline"
                      >Download these receivables as CSV</a
                    >
                    ${" "}<a href=${exportPath(view.filters, true)} download>with their metadata</a>
                  </p>`
            }${results(view)}`
          : html`${alert(`Nothing was searched: ${view.problem}`)}<p><a href="/dashboard/receivables">Clear filters</a></p>`
      }
    `,
    viewer,
    { current: "/dashboard/receivables" }
  )

/** History's field names in plain words; metadata keys are shown as `metadata.<key>`, as sent. */
const fieldLabels: Record<string, string> = {
  vendor_receivable_id: "Invoice number",
  amount_cents: "Amount",
  currency: "Currency",
  receivable_date: "Dated",
  due_date: "Due date",
  status: "Status",
  portal_status: "Status on the portal",
  po_number: "PO number"
}

const shown = (field: string, value: FieldValue, currency: string) => {
  if (value === null) return "(none)"
  if (field === "amount_cents" && typeof value === "number") return formatMoney(value, currency)
  return String(value)
}

export const detail = (viewer: Viewer, receivable: Receivable, back: string) => {
  const title = `Receivable ${receivable.vendorReceivableId ?? receivable.id}`
  const metadata = Object.entries(receivable.metadata ?? {})
  return page(
    title,
    html`
      <p><a href=${back}>Back to the list</a></p>
      <h1>${title}</h1>
      <dl>
        <dt>Id</dt><dd><code>${receivable.id}</code></dd>
        <dt>Vendor</dt><dd>${receivable.vendor.name}</dd>
        <dt>Debtor</dt><dd>${receivable.debtor.name}</dd>
        <dt>Status</dt><dd>${statusBadge(receivable.status)} (the portal says “${receivable.portalStatus}”)</dd>
        <dt>Amount</dt><dd>${money(receivable.amountCents, receivable.currency)}</dd>
        <dt>Dated</dt><dd>${receivable.receivableDate}</dd>
        <dt>Due</dt><dd>${receivable.dueDate ?? "(none)"}</dd>
        <dt>PO number</dt><dd>${receivable.poNumber ?? "(none)"}</dd>
        <dt>Detected</dt><dd>${when(receivable.detectedAt, "")}</dd>
        <dt>Next update</dt><dd>${when(receivable.estimatedNextUpdateAt, "none scheduled")}</dd>
      </dl>
      <section aria-labelledby="history-heading">
        <h2 id="history-heading">History, newest first</h2>
        <ol class="timeline">
          ${(receivable.history ?? []).map((entry) => {
            // An amount is shown in the currency it was in: the entry's own change of currency, if any.
            const currencyChange = entry.changes.currency
            const currencyOf = (value: FieldValue | undefined) =>
              typeof value === "string" && /^[A-Z]{3}$/.test(value) ? value : receivable.currency
            return html`<li>
              ${when(entry.changedAt, "")}
              <ul>
                ${Object.entries(entry.changes).map(
                  ([field, change]) => html`<li>
                    ${fieldLabels[field] ?? html`<code>${field}</code>`}: ${shown(
                      field,
                      change.from,
                      currencyOf(currencyChange?.from)
                    )} → ${shown(field, change.to, currencyOf(currencyChange?.to))}
                  </li>`
                )}
              </ul>
            </li>`
          })}
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
    `,
    viewer,
    { current: "/dashboard/receivables" }
  )
}
