/**
 * The views of the organization's syncs: the overview (what needs attention first, then the
 * receivables' amounts per status and currency, then how fresh the data is), the pairs with their
 * state and last run (found by a part of either name or by state, 25 a page), and one pair with its sync history as a small chart and a table, the
 * documents its runs quarantined grouped by document, and the admins' "Sync now", pause and
 * resume. Functions of what they show; preact escapes the text.
 */
import type { DateTime } from "effect"
import { html } from "htm/preact"
import type { ComponentChildren } from "preact"
import type { IntegrationDetail } from "../../../../core/admin/services/IntegrationAdministration.ts"
import { type Integration, IntegrationState } from "../../../../core/receivables/domain/Resources.ts"
import * as RunError from "../../../../core/receivables/domain/RunError.ts"
import type { SyncRunRecord } from "../../../../core/receivables/ports/DirectoryStore.ts"
import type { StatusTotal } from "../../../../core/receivables/ports/ReceivableSearch.ts"
import type { DirectoryRefused } from "../../../../core/receivables/services/Directory.ts"
import type { DisabledEndpoint } from "../../../../core/webhooks/ports/WebhookOverview.ts"
import { csrfField, page, type Viewer } from "../frame/Layout.ts"
import { alert, counted, money, notice, pager, stateBadge, statusBadge, table, when } from "../frame/Parts.ts"
import { disabledReasonText, endpointPath } from "../webhooks/WebhookPages.ts"
import { type Attention, needingAttention } from "./Attention.ts"
import { SyncChart } from "./SyncChart.ts"

const integrationStates = IntegrationState.literals

const pairName = (integration: Integration) => `${integration.vendor.name} → ${integration.debtor.name}`

const pairLink = (integration: Integration) =>
  html`<a href=${`/dashboard/integrations/${integration.id}`}>${pairName(integration)}</a>`

const nextUpdate = (integration: Integration) =>
  when(integration.estimatedNextUpdateAt, integration.state === "paused" ? "none (paused)" : "not scheduled")

const counts = (run: {
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly quarantined: number
}) => `${run.created} created, ${run.updated} updated, ${run.unchanged} unchanged, ${run.quarantined} quarantined`

const lastRun = (integration: Integration) => {
  const run = integration.lastSync
  if (run === null) return "no run yet"
  return html`${stateBadge(run.outcome)} ${when(run.finishedAt, "")}: ${run.error ?? counts(run)}`
}

/** Why "Sync now" did not sync, and when to try again, in the reader's terms and time. */
export const notSyncedBecause = (wait: DirectoryRefused["wait"]) => {
  const again = wait?.until === undefined ? null : html` Try again ${when(wait.until, "")}.`
  switch (wait?.reason) {
    case "recent":
      return html`Not synced: this pair synced too recently to sync again yet.${again}`
    case "portal":
      return html`Not synced: the pair's portal asked to be left alone for a while.${again}`
    case "busy":
      return "Not synced now: this pair is being synced already. Its result shows here when that run ends."
    default:
      return "Not synced: the pair could not be synced now."
  }
}

const concernText = ({ concern, integration }: Attention) => {
  switch (concern) {
    case "failing":
      return html`its last run failed ${when(integration.lastSync?.finishedAt ?? null, "")}: ${
        integration.lastSync?.error ?? "no reason was recorded"
      }`
    case "stale":
      return html`its update is overdue since ${nextUpdate(integration)}`
    case "paused":
      return "paused: it is not synced until an admin resumes it"
    case "quarantined":
      return html`its last run quarantined ${counted(integration.lastSync?.quarantined ?? 0, "document")} the portal sent`
  }
}

const disabledEndpointItem = (endpoint: DisabledEndpoint) =>
  html`<li>${stateBadge("disabled")} webhook endpoint <a href=${endpointPath(endpoint.id)}>${endpoint.url}</a>: ${
    disabledReasonText[endpoint.reason]
  } ${when(endpoint.disabledAt, "")}; its events wait until it is enabled</li>`

const attentionSection = (items: ReadonlyArray<Attention>, disabled: ReadonlyArray<DisabledEndpoint>) => html`
  <section aria-labelledby="attention-heading">
    <h2 id="attention-heading">Needs attention</h2>
    ${
      items.length === 0 && disabled.length === 0
        ? html`<p>Nothing needs attention: every pair is syncing on schedule.</p>`
        : html`<ul class="problems">
            ${items.map(
              (item) => html`<li>${stateBadge(item.concern)} ${pairLink(item.integration)}: ${concernText(item)}</li>`
            )}
            ${disabled.map(disabledEndpointItem)}
          </ul>`
    }
  </section>
`

const totalsSection = (totals: ReadonlyArray<StatusTotal>) => html`
  <section aria-labelledby="status-heading">
    <h2 id="status-heading">Receivables by status</h2>
    ${table(
      "All of your organization's receivables, per status and currency",
      ["Status", "Currency", "Receivables", "Amount"],
      totals.map(
        (total) => html`<tr>
          <th scope="row"><a href=${`/dashboard/receivables?status=${total.status}`}>${statusBadge(total.status)}</a></th>
          <td>${total.currency}</td>
          <td class="number">${total.count}</td>
          <td class="number">${money(total.amountCents, total.currency)}</td>
        </tr>`
      ),
      [2, 3]
    )}
    ${totals.length === 0 ? html`<p>No receivable yet.</p>` : null}
  </section>
`

const freshnessSection = (pairs: ReadonlyArray<Integration>) => {
  const synced = pairs.filter((pair) => pair.lastSync !== null)
  const oldest = synced.toSorted(
    (a, b) => a.lastSync!.finishedAt.epochMilliseconds - b.lastSync!.finishedAt.epochMilliseconds
  )[0]
  const upcoming = pairs
    .filter((integration) => integration.estimatedNextUpdateAt !== null)
    .toSorted((a, b) => a.estimatedNextUpdateAt!.epochMilliseconds - b.estimatedNextUpdateAt!.epochMilliseconds)
    .slice(0, 5)
  return html`
    <section aria-labelledby="freshness-heading">
      <h2 id="freshness-heading">Freshness</h2>
      <p>
        ${
          oldest === undefined
            ? "No pair has synced yet."
            : html`${synced.length} of ${counted(pairs.length, "pair")} ${synced.length === 1 ? "has" : "have"} synced; the longest since is ${pairLink(oldest)}, ${when(oldest.lastSync!.finishedAt, "")}.`
        }
      </p>
    </section>
    <section aria-labelledby="next-heading">
      <h2 id="next-heading">Next updates</h2>
      ${
        upcoming.length === 0
          ? html`<p>No update is scheduled.</p>`
          : html`<ul>${upcoming.map((integration) => html`<li>${pairLink(integration)}: ${nextUpdate(integration)}</li>`)}</ul>`
      }
    </section>
  `
}

export const overview = (
  viewer: Viewer,
  totals: ReadonlyArray<StatusTotal>,
  integrations: ReadonlyArray<Integration>,
  now: DateTime.Utc,
  disabledEndpoints: ReadonlyArray<DisabledEndpoint>
) =>
  page(
    "Overview",
    html`
      <h1>Overview</h1>
      ${attentionSection(needingAttention(integrations, now), disabledEndpoints)}
      ${totalsSection(totals)}
      ${freshnessSection(integrations)}
    `,
    viewer,
    { current: "/dashboard/overview" }
  )

export const integrationsPath = "/dashboard/integrations"
export const integrationsPageSize = 25
/** A name's part longer than this matches no vendor or debtor worth searching for. */
export const pairTextMaximum = 100

/** The list's query as its form and links carry it: text as typed, empty when not set. */
export interface PairFilters {
  /** Any part of the vendor's or the debtor's name, in any letter case. */
  readonly text: string
  readonly state: string
  readonly page: string
}

const pairParameters: ReadonlyArray<readonly [keyof PairFilters, string]> = [
  ["text", "q"],
  ["state", "state"],
  ["page", "page"]
]

export const pairFiltersOf = (query: URLSearchParams): PairFilters =>
  Object.fromEntries(
    pairParameters.map(([field, name]) => [field, (query.get(name) ?? "").trim()])
  ) as unknown as PairFilters

/** The list's address with this query: only what is set, so the plain list is `/dashboard/integrations`. */
export const pairListPath = (filters: PairFilters) => {
  const query = new URLSearchParams()
  for (const [field, name] of pairParameters) if (filters[field] !== "") query.set(name, filters[field])
  const text = query.toString()
  return text === "" ? integrationsPath : `${integrationsPath}?${text}`
}

/** What is wrong with the query, if anything, in the words the page shows. */
export const pairProblemOf = (filters: PairFilters) => {
  if (filters.text.length > pairTextMaximum) return `the name is longer than ${pairTextMaximum} characters.`
  if (filters.state !== "" && !(integrationStates as ReadonlyArray<string>).includes(filters.state)) {
    return `the state is one of ${integrationStates.join(", ")}.`
  }
  if (filters.page !== "" && !/^[1-9][0-9]{0,5}$/.test(filters.page)) return "the page is a whole number from 1 up."
  return undefined
}

/** The pairs a query `pairProblemOf` passed keeps, in the order given: the text in either name, the state. */
export const pairsMatching = (records: ReadonlyArray<Integration>, filters: PairFilters) => {
  const text = filters.text.toLowerCase()
  return records.filter(
    (integration) =>
      (text === "" ||
        integration.vendor.name.toLowerCase().includes(text) ||
        integration.debtor.name.toLowerCase().includes(text)) &&
      (filters.state === "" || integration.state === filters.state)
  )
}

export interface PairListView {
  readonly filters: PairFilters
  /** Every pair of the organization the filters keep. */
  readonly matching: ReadonlyArray<Integration>
  /** Whether the organization has any pair at all. */
  readonly anyPair: boolean
  readonly problem: string | undefined
}

const pairFilterForm = (filters: PairFilters) => html`
  <search aria-label="Find pairs">
    <form method="get" action=${integrationsPath} class="filters">
      <div class="grid">
        <div>
          <label for="q">Vendor or debtor name (any part of it)</label>
          <input id="q" name="q" type="search" value=${filters.text} maxlength=${pairTextMaximum} autocomplete="off" />
        </div>
        <div>
          <label for="state">State</label>
          <select id="state" name="state">
            <option value="" selected=${filters.state === ""}>Any</option>
            ${integrationStates.map((state) => html`<option value=${state} selected=${filters.state === state}>${state}</option>`)}
          </select>
        </div>
      </div>
      <div class="actions">
        <button type="submit">Find</button>
        <a href=${integrationsPath} role="button" class="secondary outline">Clear filters</a>
      </div>
    </form>
  </search>
`

const pairRows = (view: PairListView, page: number) => {
  const { matching } = view
  const first = (page - 1) * integrationsPageSize
  const shown = matching.slice(first, first + integrationsPageSize)
  const lastPage = Math.max(1, Math.ceil(matching.length / integrationsPageSize))
  const found = `${counted(matching.length, "pair")} ${matching.length === 1 ? "matches" : "match"}`
  const summary =
    shown.length === 0
      ? `${found}; this page is past the end`
      : `${found}; ${first + 1} to ${first + shown.length} shown`
  return html`
    ${table(
      `Your organization's vendor-debtor pairs: ${summary}`,
      ["Pair", "Connector", "State", "Last run", "Next update"],
      shown.map(
        (integration) => html`<tr>
          <th scope="row">${pairLink(integration)}</th>
          <td>${integration.connector}</td>
          <td>${stateBadge(integration.state)}</td>
          <td>${lastRun(integration)}</td>
          <td>${nextUpdate(integration)}</td>
        </tr>`
      )
    )}
    ${pager(page, lastPage, (n) => pairListPath({ ...view.filters, page: n === 1 ? "" : String(n) }))}
  `
}

const pairResults = (view: PairListView) => {
  if (view.problem !== undefined) {
    return html`${alert(`Nothing was searched: ${view.problem}`)}<p><a href=${integrationsPath}>Clear filters</a></p>`
  }
  if (!view.anyPair) return html`<p>No pairs yet: an operator adds them.</p>`
  if (view.matching.length === 0) {
    return html`<p>No pair matches. <a href=${integrationsPath}>Clear filters</a> to see every pair.</p>`
  }
  return pairRows(view, view.filters.page === "" ? 1 : Number(view.filters.page))
}

export const integrations = (viewer: Viewer, view: PairListView) =>
  page(
    "Integrations",
    html`
      <h1>Integrations</h1>
      ${pairFilterForm(view.filters)}
      ${pairResults(view)}
    `,
    viewer,
    { current: integrationsPath }
  )

// Four columns where there were nine, so that the error stays in view: when it ended under when it
// started, and what it found under how many documents it fetched.
const runRow = (run: SyncRunRecord) => html`<tr>
  <th scope="row">${when(run.startedAt, "")}<span class="sub">${run.finishedAt === null ? "running" : html`finished ${when(run.finishedAt, "")}`}</span></th>
  <td>${stateBadge(run.outcome ?? "running")}</td>
  <td>${counted(run.fetched, "document")} fetched<span class="sub">${counts(run)}</span></td>
  <td>${RunError.forConsumers(run.error).error ?? ""}</td>
</tr>`

/** The documents the runs quarantined, each once (newest run first), with every reason given. */
const quarantineSection = (runs: ReadonlyArray<SyncRunRecord>) => {
  const documents = new Map<string, { reasons: Set<string>; runs: number; last: DateTime.Utc }>()
  for (const run of runs) {
    for (const document of run.quarantine) {
      const known = documents.get(document.documentKey)
      if (known === undefined) {
        documents.set(document.documentKey, { reasons: new Set(document.reasons), runs: 1, last: run.startedAt })
      } else {
        for (const reason of document.reasons) known.reasons.add(reason)
        known.runs++
      }
    }
  }
  if (documents.size === 0) return null
  return html`<section aria-labelledby="quarantine-heading">
    <h2 id="quarantine-heading">Quarantined documents</h2>
    <ul>
      ${runs
        .filter((run) => run.quarantine.length > 0)
        .map(
          (run) =>
            html`<li>Run of ${when(run.startedAt, "")}: ${run.quarantine.length} of ${counted(run.quarantined, "quarantined document")} kept</li>`
        )}
    </ul>
    ${table(
      "Quarantined documents and why, each once, newest run first",
      ["Document", "Reasons", "Runs", "Last quarantined"],
      [...documents].map(
        ([key, document]) => html`<tr>
          <th scope="row" class="secret">${key}</th>
          <td>${[...document.reasons].join("; ")}</td>
          <td class="number">${document.runs}</td>
          <td>${when(document.last, "")}</td>
        </tr>`
      ),
      [2]
    )}
  </section>`
}

const pairActions = (viewer: Viewer, integration: Integration) => {
  const paused = integration.state === "paused"
  const action = `/dashboard/integrations/${integration.id}`
  return html`<div class="actions">
    ${
      paused
        ? null
        : html`<form method="post" action=${`${action}/sync`}>
            ${csrfField(viewer)}
            <button type="submit">Sync now</button>
          </form>`
    }
    <form
      method="post"
      action=${`${action}/${paused ? "resume" : "pause"}`}
      data-confirm=${paused ? undefined : `Pause syncing ${pairName(integration)}? Its receivables stop updating until it is resumed.`}
    >
      ${csrfField(viewer)}
      <button type="submit" class="secondary">${paused ? "Resume syncing" : "Pause syncing"}</button>
    </form>
  </div>`
}

export const integration = (
  viewer: Viewer,
  detail: IntegrationDetail,
  messages: { readonly changed?: string | undefined; readonly refused?: ComponentChildren } = {}
) => {
  const { integration: pair, runs } = detail
  return page(
    pairName(pair),
    html`
      <h1>${pairName(pair)}</h1>
      ${notice(messages.changed)}
      ${alert(messages.refused)}
      <dl>
        <dt>State</dt><dd>${stateBadge(pair.state)}</dd>
        <dt>Connector</dt><dd>${pair.connector}</dd>
        <dt>Next update</dt><dd>${nextUpdate(pair)}</dd>
      </dl>
      ${
        viewer.user.role === "admin"
          ? pairActions(viewer, pair)
          : html`<p>An admin of your organization can sync, pause or resume this pair.</p>`
      }
      <section aria-labelledby="runs-heading">
        <h2 id="runs-heading">Sync history</h2>
        ${SyncChart(runs)}
        ${table(
          "Recent runs, newest first (quarantined: documents the portal sent that failed validation)",
          ["Run", "Outcome", "Documents", "Error"],
          runs.map(runRow)
        )}
        ${runs.length === 0 ? html`<p>No run yet.</p>` : null}
      </section>
      ${quarantineSection(runs)}
      <p><a href="/dashboard/integrations">All pairs</a></p>
    `,
    viewer,
    { current: "/dashboard/integrations" }
  )
}
