/**
 * The second factor's recovery codes on the dashboard: the page that shows a new set once (to copy,
 * with the script's copy button, or to download as a text file through a `data:` link, which needs
 * no script at all), the account page's section that counts what is left and makes a new set, and
 * the notice after signing in with one. The codes are rendered by preact, which escapes all text.
 */
import { html } from "htm/preact"
import { fewLeft } from "../../../../core/accounts/domain/RecoveryCodes.ts"
import { csrfField, page, type Viewer } from "../frame/Layout.ts"
import { counted } from "../frame/Parts.ts"

export const recoveryCodesPath = "/dashboard/account/recovery-codes"
/** The account page after a sign-in with a recovery code. */
export const usedQuery = "recovery-code-used"
/** The account page after the codes page was reloaded: they are not shown again. */
export const shownQuery = "recovery-codes-shown"

const left = (count: number) => `${counted(count, "recovery code")} left`

/** What the account page says after a sign-in with a recovery code. */
export const usedNotice = (count: number) => `You signed in with a recovery code; ${left(count)}.`
export const shownNotice = "Those recovery codes were shown once and are not shown again."

/** The file a downloaded set is, as a `data:` URL: the codes one a line, and what they are. */
const download = (email: string, codes: ReadonlyArray<string>) =>
  `data:text/plain;charset=utf-8,${encodeURIComponent(
    [
      `Partner Receivables dashboard: recovery codes for ${email}`,
      "Each code signs in once in place of a code of your authenticator app.",
      "",
      ...codes,
      ""
    ].join("\n")
  )}`

export const recoveryCodes = (viewer: Viewer, codes: ReadonlyArray<string>) =>
  page(
    "Recovery codes",
    html`
      <h1>Your recovery codes</h1>
      <p role="status">
        Keep these ${counted(codes.length, "code")} somewhere safe: they are shown only this once, and any older ones no
        longer work. If you lose your authenticator app, each one signs you in once in place of its code.
      </p>
      <label for="recovery-codes">Recovery codes, one a line</label>
      <textarea id="recovery-codes" class="secret" readonly rows=${codes.length} spellcheck="false">${codes.join("\n")}</textarea>
      <p><button type="button" data-copy="recovery-codes" class="secondary" hidden>Copy the codes</button></p>
      <p>
        <a href=${download(viewer.user.email, codes)} download="partner-receivables-recovery-codes.txt">Download as text</a>
      </p>
      <p><a href="/dashboard/account">Back to the account</a></p>
    `,
    viewer
  )

/** The account page's part while the factor is on: how many are left, and a new set for the password. */
export const recoveryCodesSection = (viewer: Viewer, count: number) => html`
  <section aria-labelledby="recovery-heading">
    <h2 id="recovery-heading">Recovery codes</h2>
    ${
      count <= fewLeft
        ? html`<p role="alert"><strong>${left(count)}.</strong> Make a new set before you run out: without your app or a code, only an operator's new invite lets you in.</p>`
        : html`<p>${left(count)}. Each signs you in once if you lose your authenticator app.</p>`
    }
    <form method="post" action=${recoveryCodesPath}>
      ${csrfField(viewer)}
      <label for="recovery-password">Password</label>
      <input id="recovery-password" name="password" type="password" autocomplete="current-password" required />
      <button type="submit" class="secondary">Generate new recovery codes</button>
      <small>The codes you have now stop working.</small>
    </form>
  </section>
`
