/**
 * The reference page in a real browser (headless Chromium through playwright-core): it loads
 * with no request leaving the service's origin and no Content-Security-Policy violation, and its
 * try-it client, the bearer scheme selected from the start, sends a list request with a key
 * typed into its authentication and shows the 200. Needs Chromium (Debian's `chromium`, or `CHROMIUM_PATH`); fails, never skips, without
 * it. A screenshot of the answered request is kept in `test-artifacts/`.
 */
import { mkdirSync } from "node:fs"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { chromium } from "playwright-core"
import { artifacts, chromiumPath } from "../support/Chromium.ts"
import { insertFixture, keys } from "../support/Fixtures.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

const TestLayer = Layer.effectDiscard(insertFixture).pipe(Layer.provideMerge(serverLayer))

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the reference page in a browser", (it) => {
  it.effect(
    "loads everything from the service and sends a list request with the key typed into it",
    () =>
      Effect.gen(function* () {
        const base = yield* BaseUrl
        const executablePath = chromiumPath()
        const browser = yield* Effect.acquireRelease(
          Effect.promise(() => chromium.launch({ executablePath, args: ["--no-sandbox"] })),
          (browser) => Effect.promise(() => browser.close())
        )
        const page = yield* Effect.promise(() => browser.newPage())
        const requested: Array<string> = []
        const violations: Array<string> = []
        page.on("request", (request) => requested.push(request.url()))
        page.on("console", (message) => {
          if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text())
        })
        const sent = yield* Effect.promise(async () => {
          await page.goto(`${base}/docs`, { waitUntil: "networkidle" })
          // The request example shown beside the list: the document's curl, not one filled with
          // every optional parameter.
          await page
            .getByText(/^curl "\$PARTNER_RECEIVABLES_URL\/v1\/receivables"/)
            .first()
            .waitFor({ timeout: 10_000 })
          const body = await page.locator("body").innerText()
          // The bearer scheme is selected from the start: pasting the key is the only step.
          const authentication = body.slice(body.indexOf("Authentication"), body.indexOf("Authentication") + 200)
          const example = body.slice(body.indexOf('curl "$PARTNER_RECEIVABLES_URL/v1/receivables"')).split("\n\n")[0]!
          await page
            .getByRole("button", { name: /Test Request/i })
            .first()
            .click()
          // The bearer scheme's token field (Scalar masks it with this class).
          await page.locator("input.scalar-password-input").first().fill(keys.orgA)
          const answered = page.waitForResponse((response) => new URL(response.url()).pathname === "/v1/receivables")
          await page.getByRole("button", { name: /^Send/ }).first().click()
          const response = await answered
          await page
            .getByText(/^200\b/)
            .first()
            .waitFor({ timeout: 10_000 })
          mkdirSync(artifacts, { recursive: true })
          await page.screenshot({ path: `${artifacts}/docs-try-it.png` })
          return {
            example,
            status: response.status(),
            url: response.url(),
            authorization: await response.request().headerValue("authorization"),
            authentication
          }
        })
        assert.deepStrictEqual(
          requested.filter((url) => new URL(url).origin !== base),
          [],
          "every request stays on the service's origin"
        )
        assert.isTrue(
          requested.some((url) => url.includes("/docs/assets/scalar.")),
          "the script is served apart"
        )
        assert.deepStrictEqual(violations, [])
        assert.match(sent.authentication, /Selected Auth Type:\s*bearer/)
        assert.notInclude(sent.authentication, "No authentication selected")
        assert.strictEqual(sent.status, 200)
        assert.strictEqual(sent.authorization, `Bearer ${keys.orgA}`)
        assert.include(sent.example, '--header "Authorization: Bearer $PARTNER_RECEIVABLES_KEY"')
        assert.notMatch(sent.example, /Basic|\?|If-None-Match/)
        // No filter is filled in for the client: the request is the plain list.
        assert.strictEqual(new URL(sent.url).search, "")
      }).pipe(Effect.scoped),
    120_000
  )
})
