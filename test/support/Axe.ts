/**
 * axe-core in a page the browser tests drive: the WCAG 2.1 A and AA rules' violations, as
 * `rule at target` lines (none is the aim).
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Page } from "playwright-core"

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

export const wcagViolations = async (page: Page) => {
  await page.evaluate(axeSource)
  const violations = (await page.evaluate(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) => r.violations)"
  )) as ReadonlyArray<{ id: string; nodes: ReadonlyArray<{ target: ReadonlyArray<string> }> }>
  return violations.map((v) => `${v.id} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)
}
