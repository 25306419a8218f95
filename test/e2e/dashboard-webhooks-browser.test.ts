/**
 * The webhook pages in a real browser (headless Chromium through playwright-core), as an admin
 * uses them: add an endpoint on loopback (`WEBHOOK_ALLOWED_HOSTS`), copy its secret from the page
 * that shows it once, send a test and read its attempt, disable it (the banner), enable it,
 * replay a window and retry a delivery. Every page, in light and dark, at 1440x900 and 390x844,
 * passes axe-core with no WCAG 2.1 A/AA violation and trips no Content-Security-Policy; each is
 * kept as `test-artifacts/webhooks-*.png`. Needs Chromium; fails, never skips, without it.
 */

import { randomBytes } from "node:crypto"
import { mkdirSync } from "node:fs"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import { chromium } from "playwright-core"
import { AccountsLive } from "../../app/Layers.ts"
import { verifyWebhook } from "../../client/src/mod.ts"
import { PairStoreHarness } from "../contracts/PairStore.harness.ts"
import * as PostgresHarness from "../contracts/PairStore.postgresHarness.ts"
import { inspectEverywhere, sizes, wcagViolations } from "../support/Accessibility.ts"
import { artifacts, chromiumPath } from "../support/Chromium.ts"
import { inviteToken, password } from "../support/DashboardClient.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"
import { receiver, webhookHeaders } from "../webhooks/support/Receiver.ts"
import { syncEvents } from "../webhooks/support/Sync.ts"

// Read by the app's services from the environment; this file's worker is its own process.
process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1:1-65535"
process.env.WEBHOOK_SECRET_KEYS = `1:${randomBytes(32).toString("base64")}`

const TestLayer = Layer.mergeAll(serverLayer({ dashboard: true }), AccountsLive).pipe(
  Layer.provideMerge(PostgresHarness.layer)
)

layer(TestLayer, { timeout: 300_000, excludeTestServices: true })(
  "the dashboard's webhook pages in a browser",
  (it) => {
    it.effect(
      "create, secret once, test, disable with its banner, enable, replay and retry: working, accessible, kept as screenshots",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const base = yield* BaseUrl
            const harness = yield* PairStoreHarness
            const pair = yield* harness.addPair({ dueInSeconds: 3600 })
            const hooks = yield* receiver((_, response) => response.writeHead(200).end("thanks"))
            const invite = yield* inviteToken(pair.orgId, "hooks-admin@example.com", "admin")
            const since = DateTime.formatIso(DateTime.subtract(yield* DateTime.now, { minutes: 1 })).slice(0, 16)
            yield* syncEvents(pair, 3)
            const browser = yield* Effect.acquireRelease(
              Effect.promise(() => chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox"] })),
              (browser) => Effect.promise(() => browser.close())
            )
            mkdirSync(artifacts, { recursive: true })
            const outcome = yield* Effect.promise(async () => {
              const context = await browser.newContext({ viewport: sizes[0] })
              const page = await context.newPage()
              await page.goto(`${base}/dashboard/invite/${invite}`)
              await page.getByLabel("New password").fill(password)
              await page.getByLabel("Repeat the password").fill(password)
              await page.getByRole("button", { name: "Set password and sign in" }).click()
              await page.waitForURL(`${base}/dashboard/overview`)

              await page.getByRole("link", { name: "Webhooks" }).first().click()
              await page.getByLabel("URL (https)").fill(hooks.url)
              await page.getByLabel("Description (optional)").fill("Books")
              await page.getByLabel("receivable.created").check()
              await page.getByRole("button", { name: "Add endpoint" }).click()
              await page.waitForURL(`${base}/dashboard/webhooks/secret`)
              const secret = await page.getByLabel("Signing secret").inputValue()
              // The page that shows the secret is checked here, once: it cannot be loaded again.
              const secretViolations = await wcagViolations(page)
              await page.screenshot({ path: `${artifacts}/webhooks-secret-wide-light.png`, fullPage: true })
              await page.getByRole("link", { name: "To the endpoint" }).click()
              const endpointUrl = page.url()

              await page.getByRole("button", { name: "Send a test event" }).click()
              await page.waitForURL(/\/deliveries\/wd_[0-9a-f]{32}\?tested$/)
              const testNotice = await page.getByRole("status").first().textContent()
              const deliveryUrl = page.url().split("?")[0]!
              const answerShown = await page.getByRole("cell", { name: "thanks" }).count()

              await page.goto(endpointUrl)
              await page.getByRole("button", { name: "Disable…" }).click()
              await page.getByRole("button", { name: "Disable", exact: true }).click()
              await page.waitForURL(`${endpointUrl}?disabled`)
              const banner = await page.getByRole("note").textContent()

              const state = { storageState: await context.storageState() }
              const violations = [...secretViolations]
              for (const [url, name] of [
                [`${base}/dashboard/overview`, "webhooks-overview-disabled"],
                [`${base}/dashboard/webhooks`, "webhooks-list"],
                [endpointUrl, "webhooks-endpoint"],
                [`${endpointUrl}/enable`, "webhooks-confirm"],
                [deliveryUrl, "webhooks-delivery"]
              ] as const) {
                violations.push(...(await inspectEverywhere(browser, state, url, name)))
              }

              await page.getByRole("button", { name: "Enable…" }).click()
              await page.getByRole("button", { name: "Enable", exact: true }).click()
              await page.waitForURL(`${endpointUrl}?enabled`)
              const bannerAfter = await page.getByRole("note").count()

              await page.getByLabel("Since").fill(since)
              await page.getByRole("button", { name: "Replay" }).click()
              await page.waitForURL(/\?replayed=\d+$/)
              const replayNotice = await page.getByRole("status").first().textContent()

              await page.goto(deliveryUrl)
              await page.getByRole("button", { name: "Retry now" }).click()
              await page.waitForURL(`${deliveryUrl}?retried`)
              const retryNotice = await page.getByRole("status").first().textContent()
              await context.close()
              return { secret, testNotice, answerShown, banner, bannerAfter, replayNotice, retryNotice, violations }
            })

            const [arrived] = hooks.received
            const event = yield* Effect.promise(() =>
              verifyWebhook(arrived!.body, webhookHeaders(arrived!.headers), outcome.secret)
            )
            assert.strictEqual(event.type, "webhook.test")
            assert.strictEqual(outcome.testNotice?.trim(), "Test sent: succeeded (200).")
            assert.strictEqual(outcome.answerShown, 1, "the attempt's answer is shown")
            assert.include(outcome.banner, "A webhook endpoint is disabled")
            assert.strictEqual(outcome.bannerAfter, 0, "no banner once enabled")
            assert.strictEqual(outcome.replayNotice?.trim(), "3 events queued again.")
            assert.strictEqual(outcome.retryNotice?.trim(), "Due again now: a worker attempts it shortly.")
            assert.deepStrictEqual(outcome.violations, [])
          })
        ),
      240_000
    )
  }
)
