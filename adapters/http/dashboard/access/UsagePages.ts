/**
 * Requests per day over the last 30 days by how they were answered: a section of the Keys page
 * (the organization) and of each key's own page (`KeyPages.ts`), drawn by
 * uPlot in the browser (`assets/usage-chart.js`, fed from `data-usage`; it fetches uPlot from
 * `data-script` and `data-style` once the chart is in view) and given as a table for
 * screen readers, for axe, and for browsers without JavaScript.
 */
import { html } from "htm/preact"
import type { UsageDay } from "../../../../core/admin/services/OrganizationUsage.ts"
import { assetPath } from "../frame/Assets.ts"
import { counted, table } from "../frame/Parts.ts"

/** `whose`: whose requests they are, as the section's text names them. */
export const usageSection = (days: ReadonlyArray<UsageDay>, whose: string) => html`
  <section aria-labelledby="usage-heading">
    <h2 id="usage-heading">Requests per day</h2>
    <p>${whose} over the last ${counted(days.length, "day")} (UTC).</p>
    <div
      id="usage-chart"
      class="usage-chart"
      role="img"
      aria-label="Chart of requests per day; the numbers are in the table below"
      data-usage=${JSON.stringify(days)}
      data-script=${assetPath("uplot.js")}
      data-style=${assetPath("uplot.css")}
    ></div>
    <details>
      <summary>The numbers, per day</summary>
      ${table(
        "Requests per day, oldest first (2xx/3xx: answered; 4xx: refused; 5xx: failed)",
        ["Day", "2xx/3xx", "4xx", "5xx"],
        days.map(
          (day) => html`<tr>
            <th scope="row">${day.day}</th>
            <td class="number">${day.succeeded}</td>
            <td class="number">${day.clientErrors}</td>
            <td class="number">${day.serverErrors}</td>
          </tr>`
        ),
        [1, 2, 3]
      )}
    </details>
  </section>
`
