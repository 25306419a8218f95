/**
 * Lighthouse (the npm package) on a dashboard page, driving the same Chromium as the browser
 * tests (`Chromium.ts`) over its DevTools port: no browser is downloaded. A page is audited as a
 * phone (Lighthouse's default: a Moto G-sized screen and simulated slow 4G) or as a desktop, for
 * Performance, Accessibility and Best Practices; the session cookie rides along as a header.
 */
import lighthouse, { desktopConfig } from "lighthouse"
import { chromium } from "playwright-core"
import { chromiumPath } from "./Chromium.ts"
import { freePort } from "./ports.ts"

export type FormFactor = "mobile" | "desktop"

export interface Scores {
  readonly performance: number
  readonly accessibility: number
  readonly bestPractices: number
  /** Total Blocking Time in milliseconds: the main thread's long tasks, what a page's script costs a phone. */
  readonly totalBlockingMs: number
  /** The audits that kept a category from 100, by id, with what they measured. */
  readonly shortOf: ReadonlyArray<string>
}

const categories = ["performance", "accessibility", "best-practices"]

/** A browser Lighthouse can drive; closed by the returned function. */
export const launch = async () => {
  const port = await freePort()
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ["--no-sandbox", `--remote-debugging-port=${port}`]
  })
  return { port, close: () => browser.close() }
}

export const audit = async (
  port: number,
  url: string,
  formFactor: FormFactor,
  cookie: string | undefined
): Promise<Scores> => {
  const result = await lighthouse(
    url,
    {
      port,
      logLevel: "error",
      output: "json",
      onlyCategories: categories,
      ...(cookie === undefined ? {} : { extraHeaders: { cookie } })
    },
    formFactor === "desktop" ? desktopConfig : undefined
  )
  if (result === undefined) throw new Error(`Lighthouse returned nothing for ${url}`)
  const lhr = result.lhr
  const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100)
  const shortOf = categories.flatMap((id) =>
    (lhr.categories[id]?.auditRefs ?? [])
      .filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1)
      .map((ref) => `${id}:${ref.id} ${lhr.audits[ref.id]?.displayValue ?? ""}`.trim())
  )
  return {
    performance: score("performance"),
    accessibility: score("accessibility"),
    bestPractices: score("best-practices"),
    totalBlockingMs: Math.round(lhr.audits["total-blocking-time"]?.numericValue ?? 0),
    shortOf
  }
}
