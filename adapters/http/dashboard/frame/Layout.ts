/**
 * The page every dashboard view sits in, rendered on the server with preact and htm (tagged
 * templates, no build step): a skip link, landmarks, the navigation with the current page marked
 * (a menu that collapses behind one button on a phone, once the script runs), the signed-in user
 * with the sign-out forms, the local stylesheet and script. Text reaches the HTML through preact,
 * which escapes it.
 */
import { html } from "htm/preact"
import type { VNode } from "preact"
import { render } from "preact-render-to-string"
import type { DashboardUser } from "../../../../core/accounts/ports/UserStore.ts"
import { visibleMarkup } from "../../../../core/shared/domain/VisibleText.ts"
import { assetPath } from "./Assets.ts"

export interface Viewer {
  readonly user: DashboardUser
  readonly csrfToken: string
  /** How many of the organization's webhook endpoints are disabled: a banner says so while any is. */
  readonly disabledWebhookEndpoints?: number
}

export const csrfField = (viewer: Viewer) => html`<input type="hidden" name="csrf" value=${viewer.csrfToken} />`

// "Sign out everywhere" ends every session of the user, on every device: the script asks first.
const signOutForms = (viewer: Viewer) => html`
  <ul class="account">
    <li><span>${viewer.user.email} (${viewer.user.role})</span></li>
    <li>
      <form method="post" action="/dashboard/sign-out" class="inline">
        ${csrfField(viewer)}
        <button type="submit" class="secondary outline">Sign out</button>
      </form>
    </li>
    <li>
      <form
        method="post"
        action="/dashboard/sign-out-everywhere"
        class="inline"
        data-confirm="Sign out on every device, this one included?"
      >
        ${csrfField(viewer)}
        <button type="submit" class="secondary outline">Sign out everywhere</button>
      </form>
    </li>
  </ul>
`

/** The navigation bar's pages. */
const sections: ReadonlyArray<readonly [string, string]> = [
  ["/dashboard/overview", "Overview"],
  ["/dashboard/integrations", "Integrations"],
  ["/dashboard/receivables", "Receivables"],
  ["/dashboard/keys", "API keys"],
  ["/dashboard/webhooks", "Webhooks"],
  ["/dashboard/account", "Account"]
]

/** Pages for admins only: members get no link to them (and a 403 when they ask). */
const adminSections: ReadonlyArray<readonly [string, string]> = [
  ["/dashboard/audit", "Audit log"],
  ["/dashboard/team", "Team"]
]

const sectionsOf = (viewer: Viewer) => (viewer.user.role === "admin" ? [...sections, ...adminSections] : sections)

export interface PageOptions {
  /** Adds the chart's script, which fetches the charting library when the chart is in view (the Keys page). */
  readonly chart?: boolean
  /** The navigation entry this page belongs to, marked as the current page. */
  readonly current?: string
}

/** The banner counts disabled endpoints up to this, and says "more than" beyond. */
export const bannerCountCap = 10

// On every signed-in page while an endpoint is disabled: its events wait until it is enabled.
const disabledWebhooksBanner = (viewer: Viewer | undefined) => {
  const count = viewer?.disabledWebhookEndpoints ?? 0
  if (count === 0) return null
  const what =
    count === 1
      ? "A webhook endpoint is disabled"
      : `${count > bannerCountCap ? `More than ${bannerCountCap}` : count} webhook endpoints are disabled`
  const wait =
    count === 1 ? "its events wait until it is enabled again." : "their events wait until they are enabled again."
  return html`<p class="banner" role="note">
    <strong>${what}</strong>: ${wait}${" "}<a href="/dashboard/webhooks">See the webhooks</a>
  </p>`
}

const signedInNavigation = (viewer: Viewer, current: string | undefined) => html`
  <button type="button" class="menu-toggle secondary outline" aria-expanded="false" aria-controls="menu">Menu</button>
  <div id="menu" class="menu">
    <ul>
      ${sectionsOf(viewer).map(
        ([href, label]) =>
          html`<li><a href=${href} aria-current=${href === current ? "page" : undefined}>${label}</a></li>`
      )}
    </ul>
    ${signOutForms(viewer)}
  </div>
`

/**
 * A whole page as HTML text. Names and paths come from portals and clients: their bidirectional
 * controls (U+202E, which shows `exe.txt` for `txt.exe`) and control characters are shown as code
 * points, on every page.
 */
export const page = (title: string, body: VNode, viewer?: Viewer, options: PageOptions = {}): string =>
  `<!doctype html>${visibleMarkup(
    render(html`
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="description" content="Partner Receivables: your receivables and the syncs that find them." />
        <title>${title} · Partner Receivables</title>
        <link rel="stylesheet" href=${assetPath("pico.css")} />
        <link rel="stylesheet" href=${assetPath("dashboard.css")} />
        <script src=${assetPath("dashboard.js")}></script>
        ${options.chart === true ? html`<script src=${assetPath("usage-chart.js")} defer></script>` : null}
      </head>
      <body>
        <a class="skip-link" href="#main">Skip to the content</a>
        <header class="container">
          <nav aria-label="Main">
            <ul class="brand">
              <li><a href="/dashboard/overview"><strong>Partner Receivables</strong></a></li>
            </ul>
            ${viewer === undefined ? null : signedInNavigation(viewer, options.current)}
          </nav>
        </header>
        <main id="main" class="container" tabindex="-1">${disabledWebhooksBanner(viewer)}${body}</main>
      </body>
    </html>
  `)
  )}`
