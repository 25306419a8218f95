/**
 * Small pieces every page uses, so that every table reads alike: instants in a `<time>` element
 * (the exact UTC minute, written by the server; `dashboard.js` adds the reader's local time on
 * hover), amounts in their currency's digits, status and state badges, tables that fit their box
 * (on a phone, a card per row with each value after its column's name), alerts and notices.
 * Rendered by preact, which escapes all text.
 */
import { DateTime } from "effect"
import { html } from "htm/preact"
import { type ComponentChildren, cloneElement, isValidElement, toChildArray, type VNode } from "preact"
import type { Status } from "../../../../core/receivables/domain/Status.ts"

/** `n` and the noun that fits it: "1 run", "3 runs". */
export const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/**
 * An instant on one line, as the page's last word on it: `2026-11-26 08:15 UTC`, the zone named,
 * since the filters and exports speak UTC and the server knows no reader's zone. Nothing rewrites
 * it after load; hovering it shows the reader's local time (`dashboard.js`).
 */
export const when = (instant: DateTime.Utc | null, otherwise: string) => {
  if (instant === null) return otherwise
  const iso = DateTime.formatIso(instant)
  return html`<time datetime=${iso}>${iso.slice(0, 16).replace("T", " ")} UTC</time>`
}

const moneyFormat = (currency: string) =>
  new Intl.NumberFormat("en", { style: "currency", currency, currencyDisplay: "code" })

/** How many of a currency's minor units make one: 2 for EUR, 0 for JPY, 3 for KWD. */
const fractionDigits = (format: Intl.NumberFormat) => format.resolvedOptions().maximumFractionDigits ?? 2

/** Minor units in the currency's own digits (cents for EUR, none for JPY), with its code. */
export const formatMoney = (cents: number, currency: string) => {
  const format = moneyFormat(currency)
  return format.format(cents / 10 ** fractionDigits(format))
}

/**
 * Minor units as a plain decimal in the currency's digits, for machines: `1234.50` for EUR,
 * `1234` for JPY, `-0.05`; no grouping, no code. Integer arithmetic, so no cent is rounded away.
 */
export const decimalAmount = (cents: number, currency: string) => {
  const digits = fractionDigits(moneyFormat(currency))
  const whole = String(Math.abs(cents)).padStart(digits + 1, "0")
  const sign = cents < 0 ? "-" : ""
  return digits === 0 ? `${sign}${whole}` : `${sign}${whole.slice(0, -digits)}.${whole.slice(-digits)}`
}

/** An amount, kept on one line; its cell is right-aligned (`td.number`). */
export const money = (cents: number, currency: string) =>
  html`<span class="money">${formatMoney(cents, currency)}</span>`

/** A receivable's status as a badge; the word is the status itself, the colour only repeats it. */
export const statusBadge = (status: Status) =>
  html`<span class=${`badge status-${status.toLowerCase()}`}>${status}</span>`

/** A pair's state (active, paused, failing) or a run's outcome (succeeded, failed, running) as a badge. */
export const stateBadge = (state: string) =>
  html`<span class=${`badge state-${state}`}>${stateWords[state] ?? state}</span>`

/** States whose stored name is not a word a reader uses: a webhook attempt's outcomes. */
const stateWords: Record<string, string> = {
  http_error: "error answer",
  connection_failed: "no connection",
  timeout: "timed out",
  blocked: "address refused"
}

/** A column whose heading is more than its name: sort links, say. */
export interface Column {
  /** The column's name, also each of its values' label where the rows are cards. */
  readonly label: string
  /** The heading cell, a `<th scope="col">`. */
  readonly heading: VNode
}

// Each value names its column (`data-label`), which the stylesheet shows beside it where a phone
// lays the rows out as cards, without the heading row: the pages write their cells, the names
// are the table's, so they are set here rather than in every row.
const labelled = (row: ComponentChildren, labels: ReadonlyArray<string>) => {
  if (!isValidElement(row)) return row
  let column = 0
  const cells = toChildArray((row.props as { readonly children?: ComponentChildren }).children).map((cell) => {
    if (!isValidElement(cell) || (cell.type !== "td" && cell.type !== "th")) return cell
    const label = labels[column++]
    return cell.type === "td" && label !== undefined ? cloneElement(cell, { "data-label": label }) : cell
  })
  return cloneElement(row, {}, ...cells)
}

/**
 * A table that fits its box: on a wide screen a table, its values under their headings; on a
 * phone (`dashboard.css`) a card per row, each value beside its column's name. The region around
 * it, written here rather than by a script, scrolls sideways only if a value cannot wrap; it is
 * focusable, so keyboards can scroll it too.
 */
export const table = (
  caption: string,
  head: ReadonlyArray<string | Column>,
  rows: ComponentChildren,
  numeric: ReadonlyArray<number> = []
) => {
  const labels = head.map((column) => (typeof column === "string" ? column : column.label))
  return html`
    <div class="table-scroll" role="region" aria-label=${caption} tabindex="0">
      <table>
        <caption>${caption}</caption>
        <thead>
          <tr>${head.map((column, i) =>
            typeof column === "string"
              ? html`<th scope="col" class=${numeric.includes(i) ? "number" : undefined}>${column}</th>`
              : column.heading
          )}</tr>
        </thead>
        <tbody>${toChildArray(rows).map((row) => labelled(row, labels))}</tbody>
      </table>
    </div>
  `
}

export const alert = (message: ComponentChildren) =>
  message === undefined || message === null ? null : html`<p role="alert"><strong>${message}</strong></p>`

export const notice = (message: string | undefined) =>
  message === undefined ? null : html`<p role="status">${message}</p>`

/**
 * A list's page links: first, previous, "Page n of m", next; `at(n)` is page n's address. The
 * previous page of one past the end is the last.
 */
export const pager = (page: number, lastPage: number, at: (n: number) => string) => html`<nav aria-label="Pages">
  <ul>
    ${page > 1 ? html`<li><a href=${at(1)}>First page</a></li>` : null}
    ${page > 1 ? html`<li><a href=${at(Math.min(page - 1, lastPage))} rel="prev">Previous page</a></li>` : null}
    <li>Page ${page} of ${lastPage}</li>
    ${page < lastPage ? html`<li><a href=${at(page + 1)} rel="next">Next page</a></li>` : null}
  </ul>
</nav>`
