/**
 * The API keys' views: the organization's keys (newest first, revoked ones folded away), each
 * key's page (its last use, requests per day and top paths), the form to create one, the new key shown once with a `curl` line that uses it (and a warning
 * when another active key has its name), and revoking with a confirmation. Forms work without
 * JavaScript; every field has a label.
 */
import { html } from "htm/preact"
import type { ApiKeyRecord } from "../../../../core/access/ports/ApiKeyStore.ts"
import type { KeyUsage, UsageDay } from "../../../../core/admin/services/OrganizationUsage.ts"
import { keysPath } from "../frame/Handlers.ts"
import { csrfField, page, type Viewer } from "../frame/Layout.ts"
import { alert, notice, table, when } from "../frame/Parts.ts"
import { usageSection } from "./UsagePages.ts"

/** Where creating a key leads: the key, once. */
export const newKeyPath = `${keysPath}/new`
export const keyPath = (id: string) => `${keysPath}/${id}`

export const nameOf = (key: ApiKeyRecord) => (key.name === "" ? "(no name)" : key.name)

/** The way to revoke a key, on its row and its own page alike: an admin's, of an active key. */
const revokeLink = (viewer: Viewer, key: ApiKeyRecord) =>
  viewer.user.role === "admin" && key.revokedAt === null
    ? html`<a href=${`${keyPath(key.id)}/revoke`} aria-label=${`Revoke ${nameOf(key)}`}>Revoke…</a>`
    : null

const keyRow = (viewer: Viewer, key: ApiKeyRecord) => html`
  <tr>
    <th scope="row"><a href=${keyPath(key.id)}>${nameOf(key)}</a></th>
    <td><code>${key.displayStart}…</code></td>
    <td>${when(key.createdAt, "")}</td>
    <td>${when(key.lastUsedAt, "never")}</td>
    <td>${key.revokedAt === null ? "active" : html`revoked ${when(key.revokedAt, "")}`}</td>
    ${viewer.user.role === "admin" ? html`<td>${revokeLink(viewer, key)}</td>` : null}
  </tr>
`

const keyTable = (viewer: Viewer, records: ReadonlyArray<ApiKeyRecord>, caption: string) =>
  table(
    caption,
    ["Name", "Starts with", "Created", "Last used", "State", ...(viewer.user.role === "admin" ? ["Action"] : [])],
    records.map((key) => keyRow(viewer, key))
  )

const createForm = (viewer: Viewer, problem: string | undefined) => html`
  <section aria-labelledby="create-heading">
    <h2 id="create-heading">Create a key</h2>
    ${alert(problem)}
    <form method="post" action=${keysPath}>
      ${csrfField(viewer)}
      <label for="name">Name (what the key is for)</label>
      <input id="name" name="name" type="text" maxlength="100" required />
      <label for="webhooks">
        <input id="webhooks" name="webhooks" type="checkbox" value="on" />
        May also manage webhook endpoints (keys only read otherwise)
      </label>
      <button type="submit">Create key</button>
    </form>
  </section>
`

export const keys = (
  viewer: Viewer,
  records: ReadonlyArray<ApiKeyRecord>,
  options: {
    readonly revoked?: ApiKeyRecord
    readonly problem?: string
    readonly notice?: string
    readonly usage?: ReadonlyArray<UsageDay>
  } = {}
) => {
  const active = records.filter((key) => key.revokedAt === null)
  const revoked = records.filter((key) => key.revokedAt !== null)
  return page(
    "API keys",
    html`
      <h1>API keys</h1>
      ${
        options.revoked === undefined
          ? null
          : html`<p role="status">
              Key <strong>${nameOf(options.revoked)}</strong> is revoked: the API refuses it from its next request on.
            </p>`
      }
      ${notice(options.notice)}
      ${
        viewer.user.role === "admin"
          ? null
          : html`<p>You are a member: you can see the keys; an admin of your organization creates and revokes them.</p>`
      }
      ${active.length === 0 ? html`<p>No active keys.</p>` : keyTable(viewer, active, "Your organization's active keys, newest first")}
      ${
        revoked.length === 0
          ? null
          : html`<details>
              <summary>Revoked keys (${revoked.length})</summary>
              ${keyTable(viewer, revoked, "Revoked keys, newest first")}
            </details>`
      }
      ${viewer.user.role === "admin" ? createForm(viewer, options.problem) : null}
      ${options.usage === undefined ? null : usageSection(options.usage, "The API requests of all of your organization's keys")}
    `,
    viewer,
    { chart: options.usage !== undefined, current: "/dashboard/keys" }
  )
}

/** The new key, once: with a request that uses it, and a warning if its name is not unique. */
export const keyCreated = (
  viewer: Viewer,
  created: {
    readonly key: string
    readonly record: ApiKeyRecord
    readonly namesakes: ReadonlyArray<ApiKeyRecord>
    readonly apiBase: string
  }
) =>
  page(
    "Key created",
    html`
      <h1>Key “${nameOf(created.record)}” created</h1>
      <p role="status">Copy the key now: it is shown only this once, and only its SHA-256 is kept.</p>
      ${
        created.namesakes.length === 0
          ? null
          : html`<p role="alert">
              <strong>Another active key is also named “${nameOf(created.record)}”</strong> (starting with ${created.namesakes.map((other, index) => html`${index === 0 ? "" : ", "}<code>${other.displayStart}…</code>`)}).
              Revoke the one you replace, or tell them apart by what they start with.
            </p>`
      }
      <label for="new-key">The new key</label>
      <input id="new-key" class="secret" type="text" readonly value=${created.key} />
      <button type="button" data-copy="new-key" hidden>Copy the key</button>
      <label for="try-key">Try it</label>
      <input
        id="try-key"
        class="secret"
        type="text"
        readonly
        value=${`curl -H "Authorization: Bearer ${created.key}" ${created.apiBase}/v1/receivables`}
      />
      <p><a href=${keysPath}>Back to the keys</a></p>
    `,
    viewer,
    { current: "/dashboard/keys" }
  )

export const confirmRevoke = (viewer: Viewer, key: ApiKeyRecord) =>
  page(
    "Revoke key",
    html`
      <h1>Revoke the key “${nameOf(key)}”?</h1>
      <p>
        Clients using <code>${key.displayStart}…</code> are refused from their next request on. This cannot be undone.
      </p>
      <form method="post" action=${`${keyPath(key.id)}/revoke`}>
        ${csrfField(viewer)}
        <button type="submit">Revoke the key</button>
      </form>
      <p><a href=${keysPath}>Cancel</a></p>
    `,
    viewer,
    { current: "/dashboard/keys" }
  )

/** One key's page: what it is, when it was last used, its requests per day and its top paths. */
export const keyUsage = (viewer: Viewer, usage: KeyUsage) =>
  page(
    `Key ${nameOf(usage.key)}`,
    html`
      <h1>Key “${nameOf(usage.key)}”</h1>
      <dl>
        <dt>Starts with</dt>
        <dd><code>${usage.key.displayStart}…</code></dd>
        <dt>Created</dt>
        <dd>${when(usage.key.createdAt, "")}</dd>
        <dt>Last used</dt>
        <dd>${when(usage.key.lastUsedAt, "never")}</dd>
        <dt>State</dt>
        <dd>${usage.key.revokedAt === null ? "active" : html`revoked ${when(usage.key.revokedAt, "")}`}</dd>
      </dl>
      ${revokeLink(viewer, usage.key)}
      ${usageSection(usage.days, "The API requests made with this key")}
      <section aria-labelledby="paths-heading">
        <h2 id="paths-heading">Top paths</h2>
        ${
          usage.topPaths.length === 0
            ? html`<p>No requests in the last 30 days.</p>`
            : table(
                `The paths asked for most among this key's ${usage.sampled} latest requests of the last 30 days`,
                ["Path", "Requests"],
                usage.topPaths.map(
                  (path) => html`<tr>
                    <th scope="row"><code>${path.path}</code></th>
                    <td class="number">${path.requests}</td>
                  </tr>`
                ),
                [1]
              )
        }
      </section>
      <p><a href=${keysPath}>Back to the keys</a></p>
    `,
    viewer,
    { chart: true, current: "/dashboard/keys" }
  )
