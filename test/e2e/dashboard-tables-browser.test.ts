/**
 * The dashboard's tables in a real browser, at 1440x900 and 390x844: every page with a table,
 * filled with long names, a failed run's error and requests of several keys, shows every column a
 * reader needs. No table is wider than its box (nothing to scroll to), every value lies inside the
 * box and the window, and every value has its heading in view (the table's heading row, or the
 * value's own label where the phone shows the rows as cards). Without JavaScript the page is the
 * same: the server wraps each table and writes each date; the script only adds the reader's local
 * time on hover. Needs Chromium; fails, never skips, without it. Screenshots:
 * `test-artifacts/tables-<page>-<size>.png`.
 */
import { mkdirSync } from "node:fs"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { chromium } from "playwright-core"
import { AccountsLive } from "../../app/Layers.ts"
import { sizes } from "../support/Accessibility.ts"
import { artifacts, chromiumPath } from "../support/Chromium.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import { keys as fixtureKeys, insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const TestLayer = Layer.mergeAll(serverLayer({ dashboard: true }), AccountsLive).pipe(
  Layer.provideMerge(TestDatabase.layer)
)

/**
 * What keeps a table's values from a reader, measured in the page: a table wider than its box,
 * a value outside the box or the window, a value whose heading is not in view. Every folded
 * section is opened first, so that its tables are measured too.
 */
const unreadable = () => {
  for (const details of document.querySelectorAll("details")) details.open = true
  const found: Array<string> = []
  const windowWidth = document.documentElement.clientWidth
  const shown = (rect: DOMRect, left: number, right: number) =>
    rect.width > 1 && rect.height > 1 && rect.left >= left - 1 && rect.right <= right + 1
  for (const table of document.querySelectorAll<HTMLTableElement>("main table:not(.u-legend)")) {
    const name = table.caption?.textContent?.trim() ?? "a table without a caption"
    const box = table.parentElement!
    if (box.scrollWidth > box.clientWidth + 1) {
      found.push(`${name}: ${box.scrollWidth} px wide in a ${box.clientWidth} px box`)
    }
    const frame = box.getBoundingClientRect()
    const left = Math.max(frame.left, 0)
    const right = Math.min(frame.right, windowWidth)
    const headings = [...(table.tHead?.rows[0]?.cells ?? [])]
    const rows = [...table.tBodies].flatMap((body) => [...body.rows]).slice(0, 10)
    for (const row of rows) {
      ;[...row.cells].forEach((cell, column) => {
        const text = cell.textContent?.trim().replace(/\s+/g, " ") ?? ""
        if (text === "") return
        const what = `${name}: "${text.slice(0, 40)}" (${headings[column]?.textContent?.trim() ?? column})`
        if (!shown(cell.getBoundingClientRect(), left, right)) found.push(`${what} is out of view`)
        // A row's own heading names the row; any other value needs its column's name in view.
        if (cell.tagName === "TH") return
        const label = getComputedStyle(cell, "::before").content
        const heading = headings[column]
        const headingShown = heading !== undefined && shown(heading.getBoundingClientRect(), left, right)
        if (!headingShown && (label === "none" || label === "normal" || label === '""')) {
          found.push(`${what} has no heading in view`)
        }
      })
    }
  }
  return found
}

/** How the server sent the page: each table in its own labelled region, and each date's text. */
const asSent = () => ({
  unwrapped: [...document.querySelectorAll("main table")]
    .filter((table) => {
      const box = table.parentElement!
      return !(
        box.classList.contains("table-scroll") &&
        box.getAttribute("role") === "region" &&
        box.hasAttribute("aria-label")
      )
    })
    .map((table) => table.querySelector("caption")?.textContent?.trim() ?? "a table"),
  dates: [...document.querySelectorAll("main time")].map((time) => time.textContent ?? "")
})

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard's tables in a browser", (it) => {
  it.effect(
    "every table shows every column at 1440x900 and 390x844, as the server sent it; the script only adds local times",
    () =>
      Effect.gen(function* () {
        const fixture = yield* insertFixture
        const base = yield* BaseUrl
        const sql = yield* SqlClient.SqlClient
        // Names and numbers as long as portals send them.
        yield* sql`UPDATE vendors SET name = 'Consolidated Fasteners and Fixings Europe GmbH' WHERE id = ${fixture.vendorA1}`
        yield* sql`UPDATE receivables SET vendor_receivable_id = 'INV-2026-000123-REV2', amount_cents = 123456789
          WHERE id = ${fixture.receivablesA[0]!.id}`
        const [pair] = yield* sql<{ id: string }>`
          SELECT id FROM integrations WHERE org_id = ${fixture.orgA} AND vendor_id = ${fixture.vendorA1}
          ORDER BY next_sync_at LIMIT 1`
        yield* sql`
          INSERT INTO sync_runs (org_id, integration_id, worker, started_at, finished_at, outcome, fetched, created,
            updated, unchanged, quarantined, quarantine, error)
          VALUES
            (${fixture.orgA}, ${pair!.id}, 'w1', now() - interval '3 hours', now() - interval '3 hours', 'succeeded',
              1250, 120, 34, 1090, 6, '[{"documentKey": "INV-2026-000777", "reasons": ["unknown currency"]}]', NULL),
            (${fixture.orgA}, ${pair!.id}, 'w1', now() - interval '2 hours', now() - interval '2 hours', 'failed',
              0, 0, 0, 0, 0, '[]', 'the portal answered 503'),
            (${fixture.orgA}, ${pair!.id}, 'w1', now() - interval '1 minute', NULL, NULL, 0, 0, 0, 0, 0, '[]', NULL)`
        // Requests of the organization's key, so that the audit log and the key's page have rows.
        for (const path of ["/v1/receivables?status=PENDING&limit=100", "/v1/vendors", "/v1/receivables/rcv_missing"]) {
          yield* run(() =>
            fetch(`${base}${path}`, { headers: { authorization: `Bearer ${fixtureKeys.orgA}` } }).then((r) =>
              r.arrayBuffer()
            )
          )
        }
        const [key] = yield* sql<{ id: string }>`
          SELECT id FROM api_keys WHERE org_id = ${fixture.orgA} AND revoked_at IS NULL`
        const { client } = yield* signedIn(base, fixture.orgA, "admin")
        const pages: ReadonlyArray<readonly [string, string]> = [
          ["overview", "/dashboard/overview"],
          ["integrations", "/dashboard/integrations"],
          ["pair", `/dashboard/integrations/${pair!.id}`],
          ["receivables", "/dashboard/receivables"],
          ["keys", "/dashboard/keys"],
          ["key", `/dashboard/keys/${key!.id}`],
          ["audit", "/dashboard/audit"],
          ["audit-actions", "/dashboard/audit/actions"],
          ["team", "/dashboard/team"]
        ]
        const browser = yield* Effect.acquireRelease(
          Effect.promise(() => chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox"] })),
          (browser) => Effect.promise(() => browser.close())
        )
        mkdirSync(artifacts, { recursive: true })
        const outcome = yield* Effect.promise(async () => {
          const extraHTTPHeaders = { cookie: client.cookie ?? "" }
          const problems: Array<string> = []
          const sent: Record<string, ReturnType<typeof asSent>> = {}
          const scripted: Record<string, ReadonlyArray<string>> = {}
          const plain = await browser.newContext({ extraHTTPHeaders, javaScriptEnabled: false })
          const plainPage = await plain.newPage()
          for (const [name, path] of pages) {
            await plainPage.goto(`${base}${path}`)
            sent[name] = await plainPage.evaluate(asSent)
          }
          await plain.close()
          for (const size of sizes) {
            const context = await browser.newContext({ extraHTTPHeaders, viewport: size, reducedMotion: "reduce" })
            const page = await context.newPage()
            for (const [name, path] of pages) {
              await page.goto(`${base}${path}`)
              await page.waitForLoadState("load")
              scripted[name] = await page.evaluate(asSent).then((found) => found.dates)
              for (const line of await page.evaluate(unreadable)) problems.push(`${name} at ${size.name}: ${line}`)
              await page.screenshot({ path: `${artifacts}/tables-${name}-${size.name}.png`, fullPage: true })
            }
            await context.close()
          }
          // A reader in Tokyo hovers a date: its title tells the time there.
          const tokyo = await browser.newContext({ extraHTTPHeaders, locale: "en-GB", timezoneId: "Asia/Tokyo" })
          const tokyoPage = await tokyo.newPage()
          await tokyoPage.goto(`${base}/dashboard/receivables`)
          const firstDate = tokyoPage.locator("main tbody time").first()
          await firstDate.hover()
          const hovered = {
            at: (await firstDate.getAttribute("datetime")) ?? "",
            title: (await firstDate.getAttribute("title")) ?? ""
          }
          await tokyo.close()
          return { problems, sent, scripted, hovered }
        })
        assert.deepStrictEqual(outcome.problems, [])
        for (const [name] of pages) {
          assert.deepStrictEqual(outcome.sent[name]!.unwrapped, [], `the ${name} page's tables, as sent`)
          assert.deepStrictEqual(outcome.scripted[name], outcome.sent[name]!.dates, `the ${name} page's dates`)
        }
        assert.isAbove(outcome.sent.receivables!.dates.length, 0)
        const tokyoTime = new Intl.DateTimeFormat("en-GB", {
          timeZone: "Asia/Tokyo",
          hour: "numeric",
          minute: "2-digit"
        }).format(new Date(outcome.hovered.at))
        assert.include(outcome.hovered.title, tokyoTime, "the local time on hover")
      }).pipe(Effect.scoped),
    120_000
  )
})
