/**
 * A page checked as the browser tests check every page: axe-core's WCAG 2.1 A and AA rules and
 * the Content-Security-Policy's refusals, slips in its copy (`PageCopy.ts`), at 1440x900 and 390x844, in light and dark, with a
 * screenshot of each in `test-artifacts/` (`<name>-<size>-<scheme>.png`).
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Browser, Page } from "playwright-core"
import { artifacts } from "./Chromium.ts"
import { copySlips } from "./PageCopy.ts"

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

export const sizes = [
  { name: "wide", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 }
] as const
export const schemes = ["light", "dark"] as const

/** axe's WCAG 2.1 A and AA rules' violations on the page, as `rule at target` lines. */
export const wcagViolations = async (page: Page) => {
  await page.evaluate(axeSource)
  const violations = (await page.evaluate(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) => r.violations)"
  )) as ReadonlyArray<{ id: string; nodes: ReadonlyArray<{ target: ReadonlyArray<string> }> }>
  return violations.map((v) => `${v.id} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)
}

/** Every size and scheme of the page at `url`: its violations and refusals, and a screenshot of each. */
export const inspectEverywhere = async (
  browser: Browser,
  state: Parameters<Browser["newContext"]>[0],
  url: string,
  name: string
) => {
  const found: Array<string> = []
  for (const size of sizes) {
    for (const scheme of schemes) {
      const context = await browser.newContext({ ...state, viewport: size, colorScheme: scheme })
      const page = await context.newPage()
      const refused: Array<string> = []
      page.on("console", (message) => {
        if (/Content.Security.Policy|Refused to/i.test(message.text())) refused.push(message.text())
      })
      await page.goto(url)
      await page.waitForLoadState("load")
      for (const line of await wcagViolations(page)) found.push(`${name} ${size.name} ${scheme}: ${line}`)
      for (const line of refused) found.push(`${name} ${size.name} ${scheme}: CSP ${line}`)
      for (const slip of copySlips(await page.innerText("body"))) found.push(`${name}: copy "${slip}"`)
      // A scrolling region inside another, which the script makes of a table the server wrapped
      // its own way: two landmarks of one name (axe's `landmark-unique`, outside the WCAG rules).
      const nested = (await page.evaluate("document.querySelectorAll('[role=region] [role=region]').length")) as number
      if (nested > 0) found.push(`${name} ${size.name} ${scheme}: ${nested} region(s) nested in another`)
      await page.screenshot({ path: `${artifacts}/${name}-${size.name}-${scheme}.png`, fullPage: true })
      await context.close()
    }
  }
  return found
}
