/**
 * The dashboard's stylesheet (Pico CSS, from its npm package), its own small stylesheet and
 * script, and the Keys page's chart (uPlot and its feeder), served by the service itself from `/dashboard/assets/<name>`, so the dashboard
 * loads nothing from elsewhere and works offline. Read once, when the module loads. Each is
 * served under a name carrying the digest of its content (`pico-<digest>.css`), so browsers may
 * keep it for a year: changed content is a new name. Page views then cost one request, not four,
 * of a client's per-address limit.
 */
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

export const assetsPrefix = "/dashboard/assets/"

/** What an asset's answer says about caching: the name changes with the content. */
export const assetCacheControl = "public, max-age=31536000, immutable"

interface Asset {
  readonly body: string
  readonly contentType: string
}

const read = (url: string) => readFileSync(fileURLToPath(url), "utf8")

const css = "text/css; charset=utf-8"
const js = "text/javascript; charset=utf-8"

const sources = {
  "pico.css": { body: read(import.meta.resolve("@picocss/pico/css/pico.min.css")), contentType: css },
  "dashboard.css": { body: read(new URL("../assets/dashboard.css", import.meta.url).href), contentType: css },
  "dashboard.js": { body: read(new URL("../assets/dashboard.js", import.meta.url).href), contentType: js },
  // The Keys page's chart: uPlot (from its npm package) and the script that feeds it.
  "uplot.css": { body: read(import.meta.resolve("uplot/dist/uPlot.min.css")), contentType: css },
  "uplot.js": { body: read(import.meta.resolve("uplot/dist/uPlot.iife.min.js")), contentType: js },
  "usage-chart.js": { body: read(new URL("../assets/usage-chart.js", import.meta.url).href), contentType: js }
} satisfies Record<string, Asset>

export type AssetName = keyof typeof sources

// Plain segments only (`RequestPath` in the API's adapter): a dash before the digest, one extension.
const servedName = (name: string, body: string) => {
  const dot = name.lastIndexOf(".")
  const digest = createHash("sha256").update(body).digest("hex").slice(0, 16)
  return `${name.slice(0, dot)}-${digest}${name.slice(dot)}`
}

const served = new Map(
  Object.entries(sources).map(([name, asset]) => [name, { name: servedName(name, asset.body), asset }])
)
const byServedName = new Map([...served.values()].map(({ name, asset }) => [name, asset]))

/** Where a page links the asset. */
export const assetPath = (name: AssetName) => `${assetsPrefix}${served.get(name)?.name ?? name}`

/** The asset served under this name, if any. */
export const findAsset = (name: string): Asset | undefined => byServedName.get(name)
