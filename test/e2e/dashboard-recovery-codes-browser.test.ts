/**
 * The second factor's recovery codes in a real browser (headless Chromium through playwright-core):
 * shown once after the factor is turned on and after each new set, downloaded as a text file with
 * no script, and one of them signing in, with scripts off, in place of the authenticator's code.
 * The codes page and the second step's recovery form, in light and dark, at 1440x900 and 390x844,
 * pass axe-core with no WCAG 2.1 A/AA violation and trip no Content-Security-Policy; each is kept
 * as a screenshot `recovery-codes-*.png` in `test-artifacts/`. Needs Chromium; fails without it.
 */
import { mkdirSync, readFileSync } from "node:fs"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as OTPAuth from "otpauth"
import { chromium, type Page } from "playwright-core"
import { AccountsLive } from "../../app/Layers.ts"
import { wcagViolations } from "../support/Accessibility.ts"
import { artifacts, chromiumPath } from "../support/Chromium.ts"
import { inviteToken, password } from "../support/DashboardClient.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const TestLayer = Layer.mergeAll(serverLayer({ dashboard: true }), AccountsLive).pipe(
  Layer.provideMerge(TestDatabase.layer)
)

const sizes = [
  { name: "wide", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 }
] as const
const schemes = ["light", "dark"] as const

const email = "recovery-browser@example.com"

/** The page's violations and refused resources, as lines naming where they were seen. */
const inspect = async (page: Page, csp: ReadonlyArray<string>, name: string) => {
  const found = (await wcagViolations(page)).map((line) => `${name}: ${line}`)
  for (const line of csp) found.push(`${name}: CSP ${line}`)
  await page.screenshot({ path: `${artifacts}/recovery-codes-${name}.png`, fullPage: true })
  return found
}

const watchCsp = (page: Page) => {
  const csp: Array<string> = []
  page.on("console", (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) csp.push(message.text())
  })
  return csp
}

const shownCodes = async (page: Page) => (await page.getByLabel("Recovery codes, one a line").inputValue()).split("\n")

layer(TestLayer, { timeout: 300_000, excludeTestServices: true })("recovery codes in a browser", (it) => {
  it.effect(
    "shown once, downloaded without script, signing in without script; accessible and kept as screenshots",
    () =>
      Effect.gen(function* () {
        const base = yield* BaseUrl
        const sql = yield* SqlClient.SqlClient
        const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Recovery') RETURNING id`
        const invite = yield* inviteToken(org!.id, email, "member")
        const browser = yield* Effect.acquireRelease(
          Effect.promise(() => chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox"] })),
          (browser) => Effect.promise(() => browser.close())
        )
        mkdirSync(artifacts, { recursive: true })
        const outcome = yield* Effect.promise(async () => {
          const context = await browser.newContext({ viewport: sizes[0], acceptDownloads: true })
          const page = await context.newPage()
          page.setDefaultTimeout(20_000)
          await page.goto(`${base}/dashboard/invite/${invite}`)
          await page.getByLabel("New password").fill(password)
          await page.getByLabel("Repeat the password").fill(password)
          await page.getByRole("button", { name: "Set password and sign in" }).click()
          await page.waitForURL(`${base}/dashboard/overview`)
          await page.goto(`${base}/dashboard/account`)
          const secret = (await page.locator("code.secret").first().textContent()) ?? ""
          await page.getByLabel("Password", { exact: true }).fill(password)
          await page
            .getByLabel("Code from your authenticator app (6 digits)")
            // The current step's code: the service takes it for 30 to 60 s (its step and the next),
            // where the previous step's could expire before a slow machine's click arrives.
            .fill(OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp: Date.now() }))
          await page.getByRole("button", { name: "Turn on" }).click()
          await page.waitForURL(`${base}/dashboard/account/recovery-codes`)
          const first = await shownCodes(page)
          const [download] = await Promise.all([
            page.waitForEvent("download"),
            page.getByRole("link", { name: "Download as text" }).click()
          ])
          const downloaded = readFileSync((await download.path())!, "utf8")
          const fileName = download.suggestedFilename()
          await page.reload()
          const afterReload = page.url()
          const state = { storageState: await context.storageState() }
          await context.close()

          // A new set in every size and scheme: each is the page shown once.
          const violations: Array<string> = []
          let latest: ReadonlyArray<string> = []
          for (const size of sizes) {
            for (const scheme of schemes) {
              const each = await browser.newContext({ ...state, viewport: size, colorScheme: scheme })
              const view = await each.newPage()
              view.setDefaultTimeout(20_000)
              const csp = watchCsp(view)
              await view.goto(`${base}/dashboard/account`)
              await view.locator("#recovery-password").fill(password)
              await view.getByRole("button", { name: "Generate new recovery codes" }).click()
              await view.waitForURL(`${base}/dashboard/account/recovery-codes`)
              latest = await shownCodes(view)
              violations.push(...(await inspect(view, csp, `${size.name}-${scheme}`)))
              await each.close()
            }
          }

          // Signing in with a recovery code: the second step's form opened, in every size and scheme
          // (axe runs as a script), then once more with scripts off: it works as plain HTML.
          const signIn = async (options: Parameters<typeof browser.newContext>[0], code: string, name?: string) => {
            const each = await browser.newContext(options)
            const view = await each.newPage()
            view.setDefaultTimeout(20_000)
            const csp = watchCsp(view)
            await view.goto(`${base}/dashboard/sign-in`)
            await view.getByLabel("E-mail address").fill(email)
            await view.getByLabel("Password").fill(password)
            await view.getByRole("button", { name: "Sign in" }).click()
            await view.getByRole("heading", { name: "Enter your code" }).waitFor()
            await view.getByText("Use a recovery code").click()
            if (name !== undefined) violations.push(...(await inspect(view, csp, name)))
            await view.getByLabel(/^Recovery code/).fill(code.toUpperCase())
            await view.getByRole("button", { name: "Sign in with the recovery code" }).click()
            await view.waitForURL(/\/dashboard\/account\?recovery-code-used$/)
            const told = (await view.getByRole("status").first().textContent()) ?? ""
            await each.close()
            return told
          }
          let used = 0
          for (const size of sizes) {
            for (const scheme of schemes) {
              await signIn({ viewport: size, colorScheme: scheme }, latest[used++]!, `sign-in-${size.name}-${scheme}`)
            }
          }
          const told = await signIn({ viewport: sizes[1], javaScriptEnabled: false }, latest[used++]!)
          return { first, downloaded, fileName, afterReload, latest, told, violations }
        })

        assert.strictEqual(outcome.first.length, 10)
        assert.include(outcome.downloaded, outcome.first.join("\n"), "the file holds the codes, one a line")
        assert.strictEqual(outcome.fileName, "partner-receivables-recovery-codes.txt")
        assert.strictEqual(outcome.afterReload, `${base}/dashboard/account?recovery-codes-shown`, "shown once")
        assert.notDeepEqual(outcome.latest, outcome.first, "each set is new")
        assert.strictEqual(outcome.told, "You signed in with a recovery code; 5 recovery codes left.")
        assert.deepStrictEqual(outcome.violations, [])
      }),
    240_000
  )
})
