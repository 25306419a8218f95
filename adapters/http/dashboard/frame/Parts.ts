/**
 * Small pieces every page uses, so that every table reads alike: instants in a `<time>` element
 * (exact UTC without JavaScript; relative, in the reader's locale, with the exact time on hover
 * once `dashboard.js` runs), amounts in their currency's digits, status and state badges, tables
 * that scroll inside themselves on a narrow screen, alerts and notices. Rendered by preact, which
 * escapes all text.
 */
import { DateTime } from "effect"
import { html } from "htm/preact"
import type { ComponentChildren } from "preact"
import type { Status } from "../../../../core/receivables/domain/Status.ts"

/** `n` and the noun that fits it: "1 run", "3 runs". */
export const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** An instant on one line: `2026-11-26 08:15 UTC`, which the script makes "3 hours ago". */
export const when = (instant: DateTime.Utc | null, otherwise: string) => {
  if (instant === null) return otherwise
  const iso = DateTime.formatIso(instant)
  const exact = `${iso.slice(0, 16).replace("T", " ")} UTC`
  return html`<time datetime=${iso} title=${exact}>${exact}</time>`
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

/**
 * A table in a region that scrolls sideways by itself when the screen is narrower than the table,
 * so the page does not. The region is focusable, so keyboards can scroll it too.
 */
export const table = (
  caption: string,
  head: ReadonlyArray<string>,
  rows: ComponentChildren,
  numeric: ReadonlyArray<number> = []
) => html`
  <div class="table-scroll" role="region" aria-label=${caption} tabindex="0">
    <table>
      <caption>${caption}</caption>
      <thead>
        <tr>${head.map((label, i) => html`<th scope="col" class=${numeric.includes(i) ? "number" : undefined}>${label}</th>`)}</tr>
      </thead>
      <tbody>${rows}</tbody>
    </table>
  </div>
`

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
