/**
 * The account page (the second factor, TOTP: turning it on with a new secret and a code, off with
 * the password and a code) and the second step of a sign-in. The secret appears on the enabling
 * page alone, as text and as its `otpauth://` URI; there is no QR code, which would need a
 * library of its own. Forms work without JavaScript; every field has a label.
 */
import { Redacted } from "effect"
import { html } from "htm/preact"
import type { Setup } from "../../../core/services/DashboardTwoFactor.ts"
import { csrfField, page, type Viewer } from "./Layout.ts"
import { alert, notice } from "./Parts.ts"

export const accountPath = "/dashboard/account"
export const signInCodePath = "/dashboard/sign-in/code"

const codeField = html`
  <label for="code">Code from your authenticator app (6 digits)</label>
  <input id="code" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required />
`

export const signInCode = (token: Redacted.Redacted<string>, problem?: string) =>
  page(
    "Enter your code",
    html`
      <h1>Enter your code</h1>
      <p>Your account has a second factor. Enter the current code of your authenticator app within 5 minutes.</p>
      ${alert(problem)}
      <form method="post" action=${signInCodePath}>
        <input type="hidden" name="token" value=${Redacted.value(token)} />
        ${codeField}
        <button type="submit">Sign in</button>
      </form>
    `
  )

const enableSection = (viewer: Viewer, setup: Setup) => html`
  <section aria-labelledby="enable-heading">
    <h2 id="enable-heading">Turn on a second factor</h2>
    <p>
      Add this secret to an authenticator app (time-based, 6 digits, 30 seconds), then enter your password and
      the app's current code. Sign-in will then ask for a code after your password. This page is the only place
      the secret is shown.
    </p>
    <p>Secret: <code class="secret">${Redacted.value(setup.secret)}</code></p>
    <p>Or as a link your app may open: <code class="secret">${setup.uri}</code></p>
    <form method="post" action=${`${accountPath}/totp/enable`}>
      ${csrfField(viewer)}
      <input type="hidden" name="secret" value=${Redacted.value(setup.secret)} />
      <label for="enable-password">Password</label>
      <input id="enable-password" name="password" type="password" autocomplete="current-password" required />
      ${codeField}
      <button type="submit">Turn on</button>
    </form>
  </section>
`

const disableSection = (viewer: Viewer) => html`
  <section aria-labelledby="disable-heading">
    <h2 id="disable-heading">Turn off the second factor</h2>
    <p>Sign-in asks for a code from your authenticator app after your password.</p>
    <form method="post" action=${`${accountPath}/totp/disable`}>
      ${csrfField(viewer)}
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      ${codeField}
      <button type="submit" class="secondary">Turn off</button>
    </form>
  </section>
`

export const account = (
  viewer: Viewer,
  state: { readonly on: true } | { readonly on: false; readonly setup: Setup },
  messages: { readonly problem?: string; readonly notice?: string } = {}
) =>
  page(
    "Account",
    html`
      <h1>Account</h1>
      <p>Signed in as <strong>${viewer.user.email}</strong> (${viewer.user.role}).</p>
      <p>Second factor: <strong>${state.on ? "on" : "off"}</strong></p>
      ${notice(messages.notice)} ${alert(messages.problem)}
      ${state.on ? disableSection(viewer) : enableSection(viewer, state.setup)}
    `,
    viewer
  )
