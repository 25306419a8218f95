/**
 * The dashboard's views as functions of what they show: sign-in, setting a password through an
 * invite, and the refusals (the API keys' views are in `KeyPages.ts`). Forms work without JavaScript; every field has a label.
 */
import { html } from "htm/preact"
import type { Invite } from "../../../../core/accounts/ports/UserStore.ts"
import { page, type Viewer } from "./Layout.ts"
import { alert } from "./Parts.ts"

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
