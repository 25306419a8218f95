/**
 * A pair's recent runs as a small bar chart, oldest on the left: a bar per run as tall as the
 * documents it fetched (a failed run's short bar still shows), coloured by outcome. Inline SVG
 * with presentation attributes only, which the Content-Security-Policy's `style-src 'self'`
 * allows; the same numbers are in the runs table beside it, and the chart's label sums them up.
 */
import { html } from "htm/preact"
import type { SyncRunRecord } from "../../../../core/receivables/ports/DirectoryStore.ts"
import { counted } from "../frame/Parts.ts"

const width = 24
const gap = 4
const height = 60
/** Contrast of at least 3:1 against white and against Pico's dark background. */
const fills: Record<string, string> = { succeeded: "#15803d", failed: "#dc2626" }
const runningFill = "#b45309"

export const SyncChart = (runs: ReadonlyArray<SyncRunRecord>) => {
  if (runs.length === 0) return null
  const oldestFirst = runs.toReversed()
  const most = Math.max(1, ...oldestFirst.map((run) => run.fetched))
  const failed = runs.filter((run) => run.outcome === "failed").length
  const succeeded = runs.filter((run) => run.outcome === "succeeded").length
  const label = `${runs.length === 1 ? "The last run" : `The last ${runs.length} runs, oldest first`}: ${succeeded} succeeded, ${failed} failed, ${
    runs.length - succeeded - failed
  } running; the tallest fetched ${counted(most, "document")}.`
  return html`<figure>
    <svg
      role="img"
      aria-label=${label}
      viewBox=${`0 0 ${oldestFirst.length * (width + gap)} ${height}`}
      width=${oldestFirst.length * (width + gap)}
      height=${height}
      class="sync-chart"
    >
      ${oldestFirst.map((run, i) => {
        const tall = Math.max(4, Math.round((run.fetched / most) * height))
        return html`<rect
          x=${i * (width + gap)}
          y=${height - tall}
          width=${width}
          height=${tall}
          fill=${fills[run.outcome ?? ""] ?? runningFill}
        />`
      })}
    </svg>
    <figcaption>${label} Green: succeeded; red: failed; amber: running. Height: documents fetched.</figcaption>
  </figure>`
}
