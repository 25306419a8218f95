/**
 * The account page (the second factor, TOTP: turning it on with a new secret and a code, off with
 * the password and a code, and the latest wrong code entered) and the second step of a sign-in.
 * The secret appears on the enabling page alone, as a QR code (`QrCode.ts`), as text and as its
 * `otpauth://` URI; the server keeps it until a code confirms it, so the form never carries it.
 * The second step takes a recovery code instead, in a form of its own behind "Use a recovery code"
 * (`RecoveryCodePages.ts` has the rest of them). Forms work without JavaScript; every field has a label.
 */
import { Redacted } from "effect"
import { html } from "htm/preact"
import type { WrongCode } from "../../../../core/accounts/ports/SecondFactorStore.ts"
import type { Setup } from "../../../../core/accounts/services/SecondFactors.ts"
import { csrfField, page, type Viewer } from "../frame/Layout.ts"
import { alert, notice, when } from "../frame/Parts.ts"
import { recoveryCodesSection } from "./RecoveryCodePages.ts"

export const accountPath = "/dashboard/account"
export const signInCodePath = "/dashboard/sign-in/code"

/** Every place for checking a password is taken: the server's limit, not the user's (503). */
export const busyMessage = "Too many sign-ins right now. Try again in a moment."
/** What a user whose second factor took too many wrong codes in a row is told. */
export const lockedFactor = (retryAfterSeconds: number) => {
  const minutes = Math.ceil(retryAfterSeconds / 60)
  const wait = minutes <= 120 ? `${minutes} minutes` : `${Math.ceil(minutes / 60)} hours`
  return `Too many wrong codes in a row: this account's second factor accepts no code for ${wait}. If those codes were not yours, someone knows your password: ask an operator for a new invite, which sets a new one.`
}

const codeField = (autofocus: boolean) => html`
  <label for="code">Code from your authenticator app (6 digits)</label>
  <input id="code" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required autofocus=${autofocus} />
`

/** Turning the factor off takes a code of the app or, for someone who lost it, a recovery code. */
const anyCodeField = html`
  <label for="code">Code from your authenticator app (6 digits) or a recovery code</label>
  <input id="code" name="code" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="20" required />
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
        ${codeField(true)}
        <button type="submit">Sign in</button>
      </form>
      <details>
        <summary>Use a recovery code</summary>
        <form method="post" action=${signInCodePath}>
          <input type="hidden" name="token" value=${Redacted.value(token)} />
          <label for="recovery-code">Recovery code (xxxxx-xxxxx), if you lost your authenticator app</label>
          <input id="recovery-code" name="code" autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="20" required />
          <button type="submit">Sign in with the recovery code</button>
        </form>
      </details>
    `
  )

const enableSection = (viewer: Viewer, setup: Setup, qr: string) => html`
  <section aria-labelledby="enable-heading">
    <h2 id="enable-heading">Turn on a second factor</h2>
    <p>
      Add this secret to an authenticator app (time-based, 6 digits, 30 seconds), then enter your password and
      the app's current code. Sign-in will then ask for a code after your password. This page is the only place
      the secret is shown.
    </p>
    <img src=${qr} width="232" height="232" alt="QR code of the secret, for an authenticator app to scan" />
    <p>Or type the secret: <code class="secret">${Redacted.value(setup.secret)}</code></p>
    <p>Or as a link your app may open: <a class="secret" href=${setup.uri}>${setup.uri}</a></p>
    <form method="post" action=${`${accountPath}/totp/enable`}>
      ${csrfField(viewer)}
      <label for="enable-password">Password</label>
      <input id="enable-password" name="password" type="password" autocomplete="current-password" required />
      ${codeField(false)}
      <button type="submit">Turn on</button>
    </form>
  </section>
`

/**
 * The latest wrong code: whoever entered it knew the password. Its owner's own typo, or a reason
 * to ask for a new invite.
 */
const wrongCodeSection = (wrong: WrongCode) => html`
  <section aria-labelledby="wrong-code-heading">
    <h2 id="wrong-code-heading">Latest wrong code</h2>
    <p role="alert">
      A wrong code was entered after your right password, ${when(wrong.at, "")}, from <strong>${wrong.clientAddress ?? "an unknown address"}</strong>. If that was not you, someone knows your
      password: ask an operator for a new invite, which sets a new one.
    </p>
  </section>
`

const disableSection = (viewer: Viewer) => html`
  <section aria-labelledby="disable-heading">
    <h2 id="disable-heading">Turn off the second factor</h2>
    <p>Sign-in asks for a code from your authenticator app, or a recovery code, after your password.</p>
    <form method="post" action=${`${accountPath}/totp/disable`}>
      ${csrfField(viewer)}
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      ${anyCodeField}
      <button type="submit" class="secondary">Turn off</button>
    </form>
  </section>
`

export const account = (
  viewer: Viewer,
  state:
    | { readonly on: true; readonly lastWrongCode: WrongCode | null; readonly recoveryCodesLeft: number }
    | { readonly on: false; readonly setup: Setup; readonly qr: string },
  messages: { readonly problem?: string; readonly notice?: string } = {}
) =>
  page(
    "Account",
    html`
      <h1>Account</h1>
      <p>Signed in as <strong>${viewer.user.email}</strong> (${viewer.user.role}).</p>
      <p>Second factor: <strong>${state.on ? "on" : "off"}</strong></p>
      ${notice(messages.notice)} ${alert(messages.problem)}
      ${state.on && state.lastWrongCode !== null ? wrongCodeSection(state.lastWrongCode) : null}
      ${state.on ? recoveryCodesSection(viewer, state.recoveryCodesLeft) : null}
      ${state.on ? disableSection(viewer) : enableSection(viewer, state.setup, state.qr)}
    `,
    viewer,
    { current: "/dashboard/account" }
  )
