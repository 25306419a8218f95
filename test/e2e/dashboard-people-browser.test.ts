/**
 * The people side of the dashboard in a real browser (headless Chromium through playwright-core):
 * the keys (created, shown once, a key's own page), the usage chart (fetched only once scrolled to on a phone, its y-axis holds "12,500"
 * whole, reads in dark mode, follows the page's width, names days in the reader's language), the team (an invite shown once), the
 * account's second factor (a QR code) and the dashboard actions. Every page, in light and dark, at
 * 1440x900 and 390x844, passes axe-core with no WCAG 2.1 A/AA violation and trips no
 * Content-Security-Policy; each is kept as a screenshot in `test-artifacts/`. Needs Chromium
 * (Debian's `chromium`, or `CHROMIUM_PATH`); fails, never skips, without it.
 */
import { mkdirSync } from "node:fs"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { type Browser, chromium, type Page } from "playwright-core"
import { AccountsLive } from "../../app/Layers.ts"
import { schemes, sizes, wcagViolations } from "../support/Accessibility.ts"
import { artifacts, chromiumPath } from "../support/Chromium.ts"
import { inviteToken, password } from "../support/DashboardClient.ts"
import { type Fixture, insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/DashboardPeopleBrowserFixture") {}

const TestLayer = Layer.mergeAll(
  serverLayer({ dashboard: true }),
  AccountsLive,
  Layer.effect(TestFixture, insertFixture)
).pipe(Layer.provideMerge(TestDatabase.layer))

/** Every size and scheme of the page at `path`: its violations, and a screenshot of each. */
const inspectEverywhere = async (
  browser: Browser,
  cookies: Parameters<Browser["newContext"]>[0],
  path: string,
  name: string
) => {
  const found: Array<string> = []
  for (const size of sizes) {
    for (const scheme of schemes) {
      const context = await browser.newContext({ ...cookies, viewport: size, colorScheme: scheme })
      const page = await context.newPage()
      const csp: Array<string> = []
      page.on("console", (message) => {
        if (/Content.Security.Policy|Refused to/i.test(message.text())) csp.push(message.text())
      })
      await page.goto(path)
      await page.waitForLoadState("load")
      for (const line of await wcagViolations(page)) found.push(`${name} ${size.name} ${scheme}: ${line}`)
      for (const line of csp) found.push(`${name} ${size.name} ${scheme}: CSP ${line}`)
      await page.screenshot({ path: `${artifacts}/people-${name}-${size.name}-${scheme}.png`, fullPage: true })
      await context.close()
    }
  }
  return found
}

/** The chart's y-axis width, the width "12,500" takes in its font, and the brightest axis pixel. */
const chartFacts = (page: Page) =>
  page.evaluate(() => {
    const chart = document.getElementById("usage-chart")!
    const over = chart.querySelector<HTMLElement>(".u-over")!
    const canvas = chart.querySelector("canvas")!
    const measure = document.createElement("canvas").getContext("2d")!
    measure.font = "12px system-ui, sans-serif"
    const ratio = canvas.width / canvas.clientWidth
    const width = Math.floor(over.offsetLeft * ratio)
    const axis = canvas.getContext("2d")!.getImageData(0, 0, width, canvas.height).data
    let brightest = 0
    // A label cut at the canvas's edge paints its first columns.
    let leftmostPainted = width
    for (let i = 0; i < axis.length; i += 4) {
      if (axis[i + 3]! > 128) {
        brightest = Math.max(brightest, (axis[i]! + axis[i + 1]! + axis[i + 2]!) / 3)
        leftmostPainted = Math.min(leftmostPainted, (i / 4) % width)
      }
    }
    return {
      axisWidth: over.offsetLeft,
      labelWidth: measure.measureText("12,500").width,
      brightest,
      leftmostPainted: leftmostPainted / ratio,
      chartWidth: canvas.clientWidth
    }
  })

layer(TestLayer, { timeout: 300_000, excludeTestServices: true })("the dashboard's people pages in a browser", (it) => {
  it.effect(
    "keys, usage chart, team, account and audit: working, accessible and kept as screenshots",
    () =>
      Effect.gen(function* () {
        const base = yield* BaseUrl
        const fixture = yield* TestFixture
        const sql = yield* SqlClient.SqlClient
        const invite = yield* inviteToken(fixture.orgA, "people-admin@example.com", "admin")
        // 12,500 requests today on the organization's key: the number the old chart cut to "2,500".
        yield* sql`
        INSERT INTO api_key_usage (key_id, org_id, day, requests_2xx, requests_4xx, requests_5xx)
        SELECT id, org_id, (now() AT TIME ZONE 'UTC')::date, 12500, 40, 2 FROM api_keys
        WHERE org_id = ${fixture.orgA} AND revoked_at IS NULL
        ON CONFLICT (key_id, day) DO UPDATE SET requests_2xx = 12500`
        const [key] = yield* sql<{ id: string }>`
        SELECT id FROM api_keys WHERE org_id = ${fixture.orgA} AND revoked_at IS NULL LIMIT 1`
        const browser = yield* Effect.acquireRelease(
          Effect.promise(() => chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox"] })),
          (browser) => Effect.promise(() => browser.close())
        )
        mkdirSync(artifacts, { recursive: true })
        const outcome = yield* Effect.promise(async () => {
          // A reader in Britain: the chart names days as they do.
          const context = await browser.newContext({ viewport: sizes[0], colorScheme: "dark", locale: "en-GB" })
          const page = await context.newPage()
          await page.goto(`${base}/dashboard/invite/${invite}`)
          await page.getByLabel("New password").fill(password)
          await page.getByLabel("Repeat the password").fill(password)
          await page.getByRole("button", { name: "Set password and sign in" }).click()
          await page.waitForURL(`${base}/dashboard/overview`)

          // On a phone the chart's top edge shows under the form: uPlot is neither fetched nor run
          // until the reader scrolls to the chart, so the page paints and answers first.
          const phone = await context.newPage()
          await phone.setViewportSize(sizes[1])
          const uplotRequests: Array<string> = []
          phone.on("request", (request) => {
            if (request.url().includes("/uplot-")) uplotRequests.push(request.url())
          })
          await phone.goto(`${base}/dashboard/keys`, { waitUntil: "networkidle" })
          const beforeScroll = {
            requests: uplotRequests.length,
            canvases: await phone.locator("#usage-chart canvas").count(),
            uplot: await phone.evaluate(() => "uPlot" in window)
          }
          await phone.locator("#usage-chart").scrollIntoViewIfNeeded()
          await phone.locator("#usage-chart canvas").waitFor()
          const afterScroll = {
            requests: uplotRequests.length,
            table: await phone.locator("#usage-chart + details table").count()
          }
          await phone.close()

          await page.goto(`${base}/dashboard/keys`)
          await page.locator("#usage-chart").scrollIntoViewIfNeeded()
          await page.locator("#usage-chart canvas").waitFor()
          const darkChart = await chartFacts(page)
          // The cursor at the chart's right end is on today, which the legend names.
          const over = page.locator("#usage-chart .u-over")
          const box = (await over.boundingBox())!
          await over.hover({ position: { x: box.width - 1, y: box.height / 2 } })
          const hoveredDay = await page
            .locator("#usage-chart .u-legend .u-series")
            .first()
            .locator(".u-value")
            .textContent()
          await page.setViewportSize(sizes[1])
          await page.waitForFunction(() => document.querySelector("#usage-chart canvas")!.clientWidth <= 390)
          const phoneChart = await chartFacts(page)
          await page.setViewportSize(sizes[0])

          await page.getByLabel("Name (what the key is for)").fill("browser people key")
          await page.getByRole("button", { name: "Create key" }).click()
          await page.waitForURL(`${base}/dashboard/keys/new`)
          const shown = await page.getByLabel("The new key").inputValue()
          const curl = await page.getByLabel("Try it").inputValue()
          await page.reload()
          const afterReload = page.url()
          const createdCount = await page.getByRole("link", { name: "browser people key", exact: true }).count()

          await page.goto(`${base}/dashboard/team`)
          await page.getByLabel("E-mail address").fill("people-member@example.com")
          await page.getByLabel("Role", { exact: true }).selectOption("member")
          await page.getByRole("button", { name: "Invite" }).click()
          await page.waitForURL(`${base}/dashboard/team/invited`)
          const link = await page.getByLabel("The invite link").inputValue()

          await page.goto(`${base}/dashboard/account`)
          const qrLoaded = await page
            .getByRole("img", { name: /QR code/ })
            .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)

          const state = { storageState: await context.storageState() }
          const violations: Array<string> = []
          for (const [path, name] of [
            ["/dashboard/keys", "keys"],
            [`/dashboard/keys/${key!.id}`, "key"],
            ["/dashboard/team", "team"],
            ["/dashboard/account", "account"],
            ["/dashboard/audit/actions", "audit-actions"],
            ["/dashboard/audit", "audit"]
          ] as const) {
            violations.push(...(await inspectEverywhere(browser, state, `${base}${path}`, name)))
          }
          await context.close()
          return {
            beforeScroll,
            afterScroll,
            darkChart,
            phoneChart,
            hoveredDay,
            shown,
            curl,
            afterReload,
            createdCount,
            link,
            qrLoaded,
            violations
          }
        })

        assert.deepStrictEqual(outcome.beforeScroll, { requests: 0, canvases: 0, uplot: false })
        // Its stylesheet and script, and the table of the same numbers there all along.
        assert.deepStrictEqual(outcome.afterScroll, { requests: 2, table: 1 })
        // The axis holds "12,500" whole (with its tick and gap), in a colour that reads on the dark theme.
        assert.isAtLeast(outcome.darkChart.axisWidth, outcome.darkChart.labelWidth + 12)
        assert.isAtLeast(outcome.darkChart.leftmostPainted, 2, "no label runs off the canvas's left edge")
        assert.isAbove(outcome.darkChart.brightest, 150, "light axis text on the dark background")
        assert.isAtMost(outcome.phoneChart.chartWidth, 390, "the chart follows the page's width")
        const today = new Intl.DateTimeFormat("en-GB", {
          weekday: "short",
          month: "short",
          day: "numeric",
          timeZone: "UTC"
        }).format(new Date())
        assert.strictEqual(outcome.hoveredDay, today, "a day in the reader's words, not 2026-11-29 12:00am")
        assert.match(outcome.shown, /^pr_live_/)
        assert.strictEqual(outcome.curl, `curl -H "Authorization: Bearer ${outcome.shown}" ${base}/v1/receivables`)
        assert.strictEqual(outcome.afterReload, `${base}/dashboard/keys?shown`)
        assert.strictEqual(outcome.createdCount, 1, "a reload makes no second key")
        assert.match(outcome.link, /\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/)
        assert.isTrue(outcome.qrLoaded, "the QR code is drawn within the Content-Security-Policy")
        assert.deepStrictEqual(outcome.violations, [])
      }),
    240_000
  )
})
