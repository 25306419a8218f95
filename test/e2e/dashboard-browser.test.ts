/**
 * The dashboard in a real browser (headless Chromium through playwright-core): an invite sets
 * the password and signs in to the overview, a pair is paused and resumed (its quarantined documents shown), the receivables (a few thousand) are paged,
 * filtered and one opened, the keys' usage is charted, a key is created (shown once, with a working copy button), used on
 * the API, revoked after a confirmation and refused by the API on its next request; sign-out and
 * sign-in; the audit log, filtered; a member's view, where the member turns on a second factor
 * (TOTP) and signs in again with a code; a used invite link. Every page passes axe-core with no serious or
 * critical violation, loads nothing from elsewhere and trips no Content-Security-Policy. Needs
 * Chromium (Debian's `chromium`, or `CHROMIUM_PATH`); fails, never skips, without it. Screenshots
 * of every page, and the pages' load times on loopback, are kept in `test-artifacts/`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as OTPAuth from "otpauth"
import { chromium, type Page } from "playwright-core"
import { AccountsLive } from "../../app/Layers.ts"
import { stepMillis } from "../../core/accounts/services/SecondFactors.ts"
import { artifacts, chromiumPath } from "../support/Chromium.ts"
import { inviteToken, password } from "../support/DashboardClient.ts"
import { type Fixture, insertFixture } from "../support/Fixtures.ts"
import { copySlips } from "../support/PageCopy.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

/** How many receivables the list pages over, besides the fixture's. */
const bulkReceivables = 3000

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

interface AxeViolation {
  readonly id: string
  readonly impact: string | null
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<string> }>
}

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/DashboardBrowserFixture") {}

const TestLayer = Layer.mergeAll(
  serverLayer({ dashboard: true }),
  AccountsLive,
  Layer.effect(TestFixture, insertFixture)
).pipe(Layer.provideMerge(TestDatabase.layer))

/** The two sizes every page is checked at: a laptop's window and a phone's (390 × 844 CSS pixels). */
const sizes = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 }
] as const

/**
 * What a page must be, at both sizes and in light and dark: no violation of WCAG 2.1 A or AA that
 * axe-core finds, no sideways scrolling of the page itself (tables scroll inside themselves), and
 * kept as a screenshot per size.
 */
const inspect = async (page: Page, name: string, timings: Record<string, number>) => {
  const loaded = (await page.evaluate(
    "performance.getEntriesByType('navigation').map((e) => e.duration)[0] ?? 0"
  )) as number
  timings[name] = Math.round(loaded * 10) / 10
  assert.deepStrictEqual(copySlips(await page.innerText("body")), [], `slips in the copy of the ${name} page`)
  await page.evaluate(axeSource)
  for (const size of sizes) {
    await page.setViewportSize(size)
    for (const colorScheme of ["light", "dark"] as const) {
      // Without motion, so that axe reads the scheme's colours rather than Pico's transition between them.
      await page.emulateMedia({ colorScheme, reducedMotion: "reduce" })
      const violations = (await page.evaluate(
        "axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'], resultTypes: ['violations'] }).then((r) => r.violations)"
      )) as ReadonlyArray<AxeViolation>
      const found = violations.map((v) => `${v.id} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)
      assert.deepStrictEqual(found, [], `axe on the ${name} page, ${size.name}, ${colorScheme}`)
    }
    await page.emulateMedia({ colorScheme: "light" })
    const sideways = (await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")) as number
    assert.isAtMost(sideways, 0, `the ${name} page scrolls sideways at ${size.name} size`)
    await page.screenshot({ path: `${artifacts}/dashboard-${name}-${size.name}.png`, fullPage: true })
  }
  await page.setViewportSize(sizes[0])
}

/** The authenticator app's code for the current step, moved `offset` steps. */
const totpCode = (secret: string, offset = 0) =>
  OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp: Date.now() + offset * stepMillis })

const apiStatus = (base: string, key: string) =>
  fetch(`${base}/v1/vendors`, { headers: { authorization: `Bearer ${key}` } }).then(async (response) => ({
    status: response.status,
    body: await response.text()
  }))

layer(TestLayer, { timeout: 180_000, excludeTestServices: true })("the dashboard in a browser", (it) => {
  it.effect(
    "invite, password, keys created, used, revoked and refused; sign-out and sign-in; a member; a used link",
    () =>
      Effect.gen(function* () {
        const base = yield* BaseUrl
        const fixture = yield* TestFixture
        const adminInvite = yield* inviteToken(fixture.orgA, "admin@example.com", "admin")
        const memberInvite = yield* inviteToken(fixture.orgA, "member@example.com", "member")
        // A few thousand receivables, so that the list's load time is measured at a realistic size.
        const sql = yield* SqlClient.SqlClient
        yield* sql`
          INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents,
            currency, receivable_date, status, portal_status, metadata, detected_at, updated_at)
          SELECT r.org_id, 'rcv_' || lpad(to_hex(10000 + n), 32, '0'), r.integration_id, r.vendor_id, r.debtor_id,
            'bulk-' || n, n, 'EUR', '2026-10-01', 'PAID', 'Paid', '{}'::jsonb,
            now() - interval '200 hours' + n * interval '1 second', now()
          FROM (SELECT * FROM receivables WHERE id = ${fixture.receivablesA[0]!.id}) r, generate_series(1, ${bulkReceivables}) AS n`
        // A run that quarantined documents, so that their reasons are on the pair's page.
        yield* sql`
          INSERT INTO sync_runs (org_id, integration_id, worker, started_at, finished_at, outcome, fetched, quarantined,
            quarantine)
          SELECT i.org_id, i.id, 'w1', now() - interval '1 hour', now() - interval '1 hour', 'succeeded', 3, 2,
            '[{"documentKey": "INV-77", "reasons": ["unknown currency"]}, {"documentKey": "INV-78", "reasons": ["no due date"]}]'
          FROM integrations i JOIN debtors d ON d.id = i.debtor_id
          WHERE i.vendor_id = ${fixture.vendorA1} AND d.name = 'Globex'`
        const browser = yield* Effect.acquireRelease(
          Effect.promise(() => chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox"] })),
          (browser) => Effect.promise(() => browser.close())
        )
        mkdirSync(artifacts, { recursive: true })
        const outcome = yield* Effect.promise(async () => {
          const timings: Record<string, number> = {}
          const requested: Array<string> = []
          const violations: Array<string> = []
          const context = await browser.newContext()
          await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base })
          const page = await context.newPage()
          page.on("request", (request) => requested.push(request.url()))
          // Pausing a pair and signing out everywhere ask first: the questions asked, each accepted.
          const confirmations: Array<string> = []
          page.on("dialog", (dialog) => {
            confirmations.push(dialog.message())
            void dialog.accept()
          })
          page.on("console", (message) => {
            if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text())
          })

          await page.goto(`${base}/dashboard/invite/${adminInvite}`)
          await inspect(page, "invite", timings)
          await page.getByLabel("New password").fill(password)
          await page.getByLabel("Repeat the password").fill(password)
          await page.getByRole("button", { name: "Set password and sign in" }).click()
          await page.waitForURL(`${base}/dashboard/overview`)
          await inspect(page, "overview", timings)
          const overviewPairs = await page
            .getByRole("region", { name: "Next updates" })
            .getByRole("link")
            .allTextContents()

          await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Integrations" }).click()
          await page.getByRole("heading", { name: "Integrations" }).waitFor()
          await inspect(page, "integrations", timings)
          await page.getByLabel("Vendor or debtor name (any part of it)").fill("globex")
          await page.getByRole("button", { name: "Find" }).click()
          await page.getByRole("caption").filter({ hasText: "2 pairs match; 1 to 2 shown" }).waitFor()
          await inspect(page, "integrations-filtered", timings)
          await page.getByRole("link", { name: "Acme Supplies → Globex" }).click()
          await page.getByRole("button", { name: "Pause syncing" }).click()
          await page.getByRole("status").filter({ hasText: "Paused" }).waitFor()
          const quarantinedShown = await page
            .getByRole("table", { name: "Quarantined documents and why, each once, newest run first" })
            .locator("tbody tr")
            .evaluateAll((rows) =>
              rows.map((row) =>
                [...row.children]
                  .slice(0, 2)
                  .map((cell) => cell.textContent ?? "")
                  .join(": ")
              )
            )
          await inspect(page, "integration", timings)
          await page.getByRole("button", { name: "Resume syncing" }).click()
          await page.getByRole("status").filter({ hasText: "Resumed" }).waitFor()

          await page
            .getByRole("navigation", { name: "Main" })
            .getByRole("link", { name: "Receivables", exact: true })
            .click()
          await page.getByRole("heading", { name: "Receivables", exact: true }).waitFor()
          await inspect(page, "receivables", timings)
          await page.getByRole("link", { name: "Next page" }).click()
          await page.getByRole("link", { name: "First page" }).waitFor()
          await inspect(page, "receivables-next", timings)
          await page.getByLabel("Status").selectOption("PENDING")
          await page.getByRole("button", { name: "Find" }).click()
          await page.getByRole("caption").filter({ hasText: "2 receivables match" }).waitFor()
          await inspect(page, "receivables-filtered", timings)
          const pendingShown = await page.getByRole("row").count()
          // Found by its invoice number, opened, and back to the same search.
          await page.getByLabel(/Invoice number, PO number or receivable id/).fill("inv-2")
          await page.getByLabel("Status").selectOption("")
          await page.getByRole("button", { name: "Find" }).click()
          await page.getByRole("caption").filter({ hasText: "1 receivable match" }).waitFor()
          await page.getByRole("link", { name: "INV-2", exact: true }).click()
          await page.getByRole("heading", { name: "History, newest first" }).waitFor()
          await inspect(page, "receivable", timings)
          const historyEntries = await page.locator("ol.timeline > li").count()
          // In UTC, as the server wrote it, once the script has run.
          const shownTime = await page.locator("ol.timeline time").first().textContent()
          await page.getByRole("link", { name: "Back to the list" }).click()
          const searchKept = await page.getByLabel(/Invoice number, PO number or receivable id/).inputValue()
          await page.getByRole("button", { name: "Clear filters" }).click()
          await page.waitForURL(`${base}/dashboard/receivables`)

          // On a phone the navigation folds behind one button.
          await page.setViewportSize(sizes[1])
          const foldedLinks = await page
            .getByRole("navigation", { name: "Main" })
            .getByRole("link", { name: "API keys" })
            .isVisible()
          await page.getByRole("button", { name: "Menu" }).click()
          await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API keys" }).click()
          await page.getByRole("heading", { name: "API keys" }).waitFor()
          await page.setViewportSize(sizes[0])
          const currentPage = await page.locator('nav a[aria-current="page"]').allTextContents()

          // uPlot draws the usage chart on a canvas, under the page's Content-Security-Policy.
          // Drawn once in view.
          await page.locator("#usage-chart").scrollIntoViewIfNeeded()
          await page.locator("#usage-chart canvas").first().waitFor()
          const chartLegend = await page.locator("#usage-chart .u-legend .u-label").allTextContents()
          await page.getByText("The numbers, per day").click()
          await inspect(page, "keys", timings)

          await page.getByLabel("Name (what the key is for)").fill("browser key")
          await page.getByRole("button", { name: "Create key" }).click()
          await page.getByRole("heading", { name: /created/ }).waitFor()
          await inspect(page, "key-created", timings)
          const key = await page.getByLabel("The new key").inputValue()
          await page.getByRole("button", { name: "Copy the key" }).click()
          await page.getByRole("button", { name: "Copied" }).waitFor()
          const copied = await page.evaluate("navigator.clipboard.readText()")
          const beforeRevoke = await apiStatus(base, key)

          await page.goto(`${base}/dashboard/keys`)
          const listedKey = (await page.content()).includes(key)
          await page.getByRole("link", { name: "Revoke browser key" }).click()
          await page.getByRole("heading", { name: /Revoke the key/ }).waitFor()
          await inspect(page, "revoke", timings)
          await page.getByRole("button", { name: "Revoke the key" }).click()
          await page.getByRole("status").filter({ hasText: "revoked" }).waitFor()
          await inspect(page, "revoked", timings)
          const afterRevoke = await apiStatus(base, key)

          await page.getByRole("button", { name: "Sign out", exact: true }).click()
          await page.getByRole("heading", { name: "Sign in" }).waitFor()
          await inspect(page, "sign-in", timings)
          await page.goto(`${base}/dashboard/keys`)
          const signedOutLandsOn = new URL(page.url()).pathname
          await page.getByLabel("E-mail address").fill("admin@example.com")
          await page.getByLabel("Password").fill("not the password")
          await page.getByRole("button", { name: "Sign in" }).click()
          await page.getByRole("alert").waitFor()
          await inspect(page, "sign-in-failed", timings)
          await page.getByLabel("Password").fill(password)
          await page.getByRole("button", { name: "Sign in" }).click()
          await page.waitForURL(`${base}/dashboard/overview`)

          await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log" }).click()
          await page.getByRole("heading", { name: "Audit log" }).waitFor()
          await inspect(page, "audit", timings)
          await page.getByLabel("Status").selectOption("2xx")
          await page.getByLabel("Path", { exact: true }).fill("/v1/vendors")
          await page.getByRole("button", { name: "Filter" }).click()
          await page.waitForURL(/status=2xx/)
          await inspect(page, "audit-filtered", timings)
          const auditedVendorRequests = await page
            .getByRole("region", { name: "API requests" })
            .locator("tbody tr")
            .allTextContents()

          const member = await (await browser.newContext()).newPage()
          member.on("request", (request) => requested.push(request.url()))
          await member.goto(`${base}/dashboard/invite/${memberInvite}`)
          await member.getByLabel("New password").fill(password)
          await member.getByLabel("Repeat the password").fill(password)
          await member.getByRole("button", { name: "Set password and sign in" }).click()
          await member.waitForURL(`${base}/dashboard/overview`)
          await member.goto(`${base}/dashboard/keys`)
          await inspect(member, "keys-member", timings)
          const memberCanCreate = await member.getByRole("button", { name: "Create key" }).count()
          const memberCanRevoke = await member.getByRole("link", { name: /^Revoke/ }).count()
          const memberAuditLinks = await member.getByRole("link", { name: "Audit log" }).count()

          await member.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" }).click()
          await member.getByRole("heading", { name: "Turn on a second factor" }).waitFor()
          await inspect(member, "account", timings)
          const secret = (await member.locator("code.secret").first().textContent()) ?? ""
          const codeLabel = "Code from your authenticator app (6 digits)"
          // The step before the current one (one step of drift), leaving the current one for sign-in.
          await member.getByLabel("Password", { exact: true }).fill(password)
          await member.getByLabel(codeLabel).fill(totpCode(secret, -1))
          await member.getByRole("button", { name: "Turn on" }).click()
          await member.getByRole("heading", { name: "Your recovery codes" }).waitFor()
          await member.goto(`${base}/dashboard/account`)
          await inspect(member, "account-totp-on", timings)
          await member.getByRole("button", { name: "Sign out", exact: true }).click()
          await member.getByLabel("E-mail address").fill("member@example.com")
          await member.getByLabel("Password").fill(password)
          await member.getByRole("button", { name: "Sign in" }).click()
          await member.getByRole("heading", { name: "Enter your code" }).waitFor()
          await inspect(member, "sign-in-code", timings)
          await member.getByLabel(codeLabel).fill(totpCode(secret))
          await member.getByRole("button", { name: "Sign in" }).click()
          await member.waitForURL(`${base}/dashboard/overview`)
          const memberSignedInWithCode = new URL(member.url()).pathname
          // Signing out everywhere asks first; dismissed, nothing happens.
          const memberQuestions: Array<string> = []
          let acceptQuestion = false
          member.on("dialog", (dialog) => {
            memberQuestions.push(dialog.message())
            void (acceptQuestion ? dialog.accept() : dialog.dismiss())
          })
          await member.getByRole("button", { name: "Sign out everywhere" }).click()
          const stayedAfterDismissing = new URL(member.url()).pathname
          acceptQuestion = true
          await member.getByRole("button", { name: "Sign out everywhere" }).click()
          await member.getByRole("heading", { name: "Sign in" }).waitFor()
          await member.goto(`${base}/dashboard/invite/${memberInvite}`)
          await inspect(member, "invite-used", timings)
          await member.goto(`${base}/dashboard/no-such-page`)
          await inspect(member, "not-found", timings)

          writeFileSync(`${artifacts}/dashboard-load-times.json`, `${JSON.stringify(timings, null, 2)}\n`)
          return {
            overviewPairs,
            confirmations,
            shownTime,
            searchKept,
            foldedLinks,
            currentPage,
            pendingShown,
            historyEntries,
            key,
            copied,
            beforeRevoke,
            afterRevoke,
            listedKey,
            signedOutLandsOn,
            memberCanCreate,
            memberCanRevoke,
            memberAuditLinks,
            memberSignedInWithCode,
            memberQuestions,
            stayedAfterDismissing,
            quarantinedShown,
            chartLegend,
            auditedVendorRequests,
            requested,
            violations
          }
        })
        assert.deepStrictEqual(outcome.overviewPairs, ["Acme Supplies → Globex", "Acme Supplies → Initech"])
        assert.deepStrictEqual(outcome.confirmations, [
          "Pause syncing Acme Supplies → Globex? Its receivables stop updating until it is resumed."
        ])
        assert.match(outcome.shownTime ?? "", /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/)
        assert.strictEqual(outcome.searchKept, "inv-2")
        assert.isFalse(outcome.foldedLinks, "the phone's menu starts folded")
        assert.deepStrictEqual(outcome.currentPage, ["API keys"])
        // The header row and the two pending receivables.
        assert.strictEqual(outcome.pendingShown, 3)
        assert.strictEqual(outcome.historyEntries, 12)
        assert.match(outcome.key, /^pr_live_[0-9A-Za-z]{39}$/)
        assert.strictEqual(outcome.copied, outcome.key)
        assert.strictEqual(outcome.beforeRevoke.status, 200)
        assert.isFalse(outcome.listedKey, "the key is shown once")
        assert.strictEqual(outcome.afterRevoke.status, 401)
        assert.strictEqual(JSON.parse(outcome.afterRevoke.body).error.code, "api_key_revoked")
        assert.strictEqual(outcome.signedOutLandsOn, "/dashboard/sign-in")
        assert.strictEqual(outcome.memberCanCreate, 0)
        assert.strictEqual(outcome.memberCanRevoke, 0)
        assert.strictEqual(outcome.memberAuditLinks, 0)
        assert.strictEqual(outcome.memberSignedInWithCode, "/dashboard/overview")
        assert.deepStrictEqual(outcome.memberQuestions, [
          "Sign out on every device, this one included?",
          "Sign out on every device, this one included?"
        ])
        assert.strictEqual(outcome.stayedAfterDismissing, "/dashboard/overview")
        assert.deepStrictEqual(outcome.chartLegend, ["Day", "2xx/3xx", "4xx", "5xx"])
        assert.deepStrictEqual(outcome.quarantinedShown, ["INV-77: unknown currency", "INV-78: no due date"])
        // The one accepted request of the new key, before it was revoked.
        assert.strictEqual(outcome.auditedVendorRequests.length, 1)
        assert.match(outcome.auditedVendorRequests[0]!, /GET\/v1\/vendors200browser key/)
        assert.deepStrictEqual(
          outcome.requested.filter((url) => new URL(url).origin !== base),
          [],
          "nothing is loaded from elsewhere"
        )
        assert.deepStrictEqual(outcome.violations, [])
      }).pipe(Effect.scoped),
    180_000
  )
})
