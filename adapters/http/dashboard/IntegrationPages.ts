/**
 * The views of the organization's syncs: the overview (receivables by status, failing pairs, the
 * next updates), the pairs with their state and last run, and one pair with its recent runs, the
 * documents they quarantined with why, and the pause or resume form (admins only). Functions of
 * what they show; preact escapes the text.
 */
import { html } from "htm/preact"
import type { Integration } from "../../../core/domain/Resources.ts"
import * as RunError from "../../../core/domain/RunError.ts"
import type { Status } from "../../../core/domain/Status.ts"
import type { SyncRunRecord } from "../../../core/ports/DirectoryStore.ts"
import type { IntegrationDetail } from "../../../core/services/IntegrationAdministration.ts"
import { csrfField, page, type Viewer } from "./Layout.ts"
import { notice, when } from "./Parts.ts"

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
  return html`${run.outcome} ${when(run.finishedAt, "")}: ${run.error ?? counts(run)}`
}

export const overview = (
  viewer: Viewer,
  byStatus: ReadonlyArray<readonly [Status, number]>,
  integrations: ReadonlyArray<Integration>
) => {
  const failing = integrations.filter((integration) => integration.state === "failing")
  const upcoming = integrations
    .filter((integration) => integration.estimatedNextUpdateAt !== null)
    .toSorted((a, b) => a.estimatedNextUpdateAt!.epochMilliseconds - b.estimatedNextUpdateAt!.epochMilliseconds)
    .slice(0, 5)
  return page(
    "Overview",
    html`
      <h1>Overview</h1>
      <section aria-labelledby="status-heading">
        <h2 id="status-heading">Receivables by status</h2>
        <table>
          <caption>All of your organization's receivables</caption>
          <thead><tr><th scope="col">Status</th><th scope="col">Receivables</th></tr></thead>
          <tbody>
            ${byStatus.map(
              ([status, count]) => html`<tr>
                <th scope="row"><a href=${`/dashboard/receivables?status=${status}`}>${status}</a></th>
                <td>${count}</td>
              </tr>`
            )}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="failing-heading">
        <h2 id="failing-heading">Failing pairs</h2>
        ${
          failing.length === 0
            ? html`<p>No pair is failing.</p>`
            : html`<ul>${failing.map((integration) => html`<li>${pairLink(integration)}: ${lastRun(integration)}</li>`)}</ul>`
        }
      </section>
      <section aria-labelledby="next-heading">
        <h2 id="next-heading">Next updates</h2>
        ${
          upcoming.length === 0
            ? html`<p>No update is scheduled.</p>`
            : html`<ul>${upcoming.map((integration) => html`<li>${pairLink(integration)}: ${nextUpdate(integration)}</li>`)}</ul>`
        }
      </section>
    `,
    viewer
  )
}

export const integrations = (viewer: Viewer, records: ReadonlyArray<Integration>) =>
  page(
    "Integrations",
    html`
      <h1>Integrations</h1>
      <table>
        <caption>Your organization's vendor-debtor pairs</caption>
        <thead>
          <tr>
            <th scope="col">Pair</th>
            <th scope="col">Connector</th>
            <th scope="col">State</th>
            <th scope="col">Last run</th>
            <th scope="col">Next update</th>
          </tr>
        </thead>
        <tbody>
          ${records.map(
            (integration) => html`<tr>
              <th scope="row">${pairLink(integration)}</th>
              <td>${integration.connector}</td>
              <td>${integration.state}</td>
              <td>${lastRun(integration)}</td>
              <td>${nextUpdate(integration)}</td>
            </tr>`
          )}
        </tbody>
      </table>
      ${records.length === 0 ? html`<p>No pairs yet: an operator adds them.</p>` : null}
    `,
    viewer
  )

const runRow = (run: SyncRunRecord) => html`<tr>
  <td>${when(run.startedAt, "")}</td>
  <td>${when(run.finishedAt, "running")}</td>
  <td>${run.outcome ?? "running"}</td>
  <td>${run.fetched}</td>
  <td>${run.created}</td>
  <td>${run.updated}</td>
  <td>${run.unchanged}</td>
  <td>${run.quarantined}</td>
  <td>${RunError.forConsumers(run.error).error ?? ""}</td>
</tr>`

/** A run's quarantined documents with their reasons: the first the run record carries, of all. */
const quarantineOf = (run: SyncRunRecord) =>
  run.quarantine.length === 0
    ? null
    : html`<details>
        <summary>
          Run of ${when(run.startedAt, "")}: ${run.quarantine.length} of ${run.quarantined} quarantined documents
        </summary>
        <table>
          <caption>Quarantined documents and why, in the order the portal sent them</caption>
          <thead><tr><th scope="col">Document</th><th scope="col">Reasons</th></tr></thead>
          <tbody>
            ${run.quarantine.map(
              (document) => html`<tr>
                <th scope="row" class="secret">${document.documentKey}</th>
                <td>${document.reasons.join("; ")}</td>
              </tr>`
            )}
          </tbody>
        </table>
      </details>`

const pauseForm = (viewer: Viewer, integration: Integration) => {
  const paused = integration.state === "paused"
  return html`<form method="post" action=${`/dashboard/integrations/${integration.id}/${paused ? "resume" : "pause"}`}>
    ${csrfField(viewer)}
    <button type="submit">${paused ? "Resume syncing" : "Pause syncing"}</button>
  </form>`
}

export const integration = (viewer: Viewer, detail: IntegrationDetail, changed?: string) => {
  const { integration: pair, runs } = detail
  return page(
    pairName(pair),
    html`
      <h1>${pairName(pair)}</h1>
      ${notice(changed)}
      <dl>
        <dt>State</dt><dd>${pair.state}</dd>
        <dt>Connector</dt><dd>${pair.connector}</dd>
        <dt>Next update</dt><dd>${nextUpdate(pair)}</dd>
      </dl>
      ${viewer.user.role === "admin" ? pauseForm(viewer, pair) : html`<p>An admin of your organization can pause or resume this pair.</p>`}
      <table>
        <caption>Recent runs, newest first (quarantined: documents the portal sent that failed validation)</caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Finished</th>
            <th scope="col">Outcome</th>
            <th scope="col">Fetched</th>
            <th scope="col">Created</th>
            <th scope="col">Updated</th>
            <th scope="col">Unchanged</th>
            <th scope="col">Quarantined</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>${runs.map(runRow)}</tbody>
      </table>
      ${runs.length === 0 ? html`<p>No run yet.</p>` : null}
      ${
        runs.some((run) => run.quarantine.length > 0)
          ? html`<section aria-labelledby="quarantine-heading">
              <h2 id="quarantine-heading">Quarantined documents</h2>
              ${runs.map(quarantineOf)}
            </section>`
          : null
      }
      <p><a href="/dashboard/integrations">All pairs</a></p>
    `,
    viewer
  )
}
