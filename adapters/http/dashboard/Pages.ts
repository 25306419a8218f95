/**
 * The dashboard's views as functions of what they show: sign-in, setting a password through an
 * invite, the API keys (list, usage per day, create, the new key shown once, revoking with a
 * confirmation) and the refusals. Forms work without JavaScript; every field has a label.
 */
import { Redacted } from "effect"
import { html } from "htm/preact"
import type { ApiKeyRecord } from "../../../core/ports/ApiKeyStore.ts"
import type { Invite } from "../../../core/ports/DashboardUserStore.ts"
import type { UsageDay } from "../../../core/services/OrganizationUsage.ts"
import { csrfField, page, type Viewer } from "./Layout.ts"
import { alert, when } from "./Parts.ts"
import { usageSection } from "./UsagePages.ts"

export const signIn = (options: { readonly problem?: string; readonly email?: string; readonly notice?: string }) =>
  page(
    "Sign in",
    html`
      <h1>Sign in</h1>
      ${options.notice === undefined ? null : html`<p role="status">${options.notice}</p>`}
      ${alert(options.problem)}
      <form method="post" action="/dashboard/sign-in">
        <label for="email">E-mail address</label>
        <input id="email" name="email" type="email" autocomplete="username" required value=${options.email ?? ""} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
    `
  )

// The form has no action: it posts to the link itself, so the page never repeats the token.
export const acceptInvite = (invite: Invite, problem?: string) =>
  page(
    "Set your password",
    html`
      <h1>Set your password</h1>
      <p>
        You are invited as <strong>${invite.role}</strong> with the address <strong>${invite.email}</strong>.
        The link works once.
      </p>
      ${alert(problem)}
      <form method="post">
        <input type="hidden" name="email" value=${invite.email} autocomplete="username" />
        <label for="password">New password (at least 12 characters)</label>
        <input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required />
        <label for="repeat">Repeat the password</label>
        <input id="repeat" name="repeat" type="password" autocomplete="new-password" minlength="12" required />
        <button type="submit">Set password and sign in</button>
      </form>
    `
  )

export const inviteUnusable = () =>
  page(
    "Invite link not usable",
    html`
      <h1>This invite link cannot be used</h1>
      <p>It has expired, was already used, or was never issued. Ask your operator for a new one.</p>
      <p><a href="/dashboard/sign-in">Sign in</a> if you have set your password already.</p>
    `
  )

const nameOf = (key: ApiKeyRecord) => (key.name === "" ? "(no name)" : key.name)

const keyRow = (viewer: Viewer, key: ApiKeyRecord) => html`
  <tr>
    <th scope="row">${nameOf(key)}</th>
    <td><code>${key.displayStart}…</code></td>
    <td>${when(key.createdAt, "")}</td>
    <td>${when(key.lastUsedAt, "never")}</td>
    <td>${key.revokedAt === null ? "active" : html`revoked ${when(key.revokedAt, "")}`}</td>
    ${
      viewer.user.role === "admin"
        ? html`<td>
            ${
              key.revokedAt === null
                ? html`<a href=${`/dashboard/keys/${key.id}/revoke`} aria-label=${`Revoke ${nameOf(key)}`}>Revoke…</a>`
                : null
            }
          </td>`
        : null
    }
  </tr>
`

const createForm = (viewer: Viewer, problem: string | undefined) => html`
  <section aria-labelledby="create-heading">
    <h2 id="create-heading">Create a key</h2>
    ${alert(problem)}
    <form method="post" action="/dashboard/keys">
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
  options: { readonly revoked?: ApiKeyRecord; readonly problem?: string; readonly usage?: ReadonlyArray<UsageDay> } = {}
) =>
  page(
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
      ${
        viewer.user.role === "admin"
          ? null
          : html`<p>You are a member: you can see the keys; an admin of your organization creates and revokes them.</p>`
      }
      <table>
        <caption>Your organization's keys, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Starts with</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">State</th>
            ${viewer.user.role === "admin" ? html`<th scope="col">Action</th>` : null}
          </tr>
        </thead>
        <tbody>
          ${records.map((key) => keyRow(viewer, key))}
        </tbody>
      </table>
      ${records.length === 0 ? html`<p>No keys yet.</p>` : null}
      ${viewer.user.role === "admin" ? createForm(viewer, options.problem) : null}
      ${options.usage === undefined ? null : usageSection(options.usage)}
    `,
    viewer,
    { chart: options.usage !== undefined }
  )

export const keyCreated = (
  viewer: Viewer,
  created: { readonly key: Redacted.Redacted<string>; readonly record: ApiKeyRecord }
) =>
  page(
    "Key created",
    html`
      <h1>Key “${created.record.name}” created</h1>
      <p role="status">Copy the key now: it is shown only this once, and only its SHA-256 is kept.</p>
      <label for="new-key">The new key</label>
      <input id="new-key" class="secret" type="text" readonly value=${Redacted.value(created.key)} />
      <button type="button" data-copy="new-key" hidden>Copy the key</button>
      <p><a href="/dashboard/keys">Back to the keys</a></p>
    `,
    viewer
  )

export const confirmRevoke = (viewer: Viewer, key: ApiKeyRecord) =>
  page(
    "Revoke key",
    html`
      <h1>Revoke the key “${nameOf(key)}”?</h1>
      <p>
        Clients using <code>${key.displayStart}…</code> are refused from their next request on. This cannot be undone.
      </p>
      <form method="post" action=${`/dashboard/keys/${key.id}/revoke`}>
        ${csrfField(viewer)}
        <button type="submit">Revoke the key</button>
      </form>
      <p><a href="/dashboard/keys">Cancel</a></p>
    `,
    viewer
  )

export const refusal = (title: string, message: string, viewer?: Viewer) =>
  page(
    title,
    html`
      <h1>${title}</h1>
      <p>${message}</p>
      <p><a href="/dashboard/overview">Back to the dashboard</a></p>
    `,
    viewer
  )
