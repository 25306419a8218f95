/**
 * The reference page at `/docs` with nothing loaded from elsewhere. Effect's Scalar page inlines
 * Scalar's 3 MB script in every load; here that script is served apart, at a path named by its
 * digest (`/docs/assets/scalar.<digest>.js`, cached for a year: a new script is a new path), with
 * Scalar's CDN fonts turned off. The page keeps its small inline start-up script, allowed by its
 * hash in a Content-Security-Policy that lets the page load and connect to this origin only.
 */
import { hash } from "node:crypto"
import { Context, Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiScalar } from "effect/http-api"
import { ResourceMissing } from "../../../core/api/Errors.ts"
import * as ErrorResponse from "../pipeline/ErrorResponse.ts"
import { CurrentRequest } from "../pipeline/RequestContext.ts"
import { docsAssetPattern, docsAssetsPrefix, faviconPath } from "../pipeline/RequestPath.ts"
import * as EntityTag from "../transport/EntityTag.ts"
import * as Favicon from "./Favicon.ts"

export class DocsAssets extends Context.Service<
  DocsAssets,
  {
    /** Scalar's page (as its route answered) loading the script from here, with its policy. */
    readonly page: (
      scalar: HttpServerResponse.HttpServerResponse
    ) => Effect.Effect<HttpServerResponse.HttpServerResponse>
    /** A file under `docsAssetsPrefix` by name; undefined for any other name. */
    readonly asset: (name: string) => Effect.Effect<HttpServerResponse.HttpServerResponse | undefined>
  }
>()("adapters/http/DocsAssets") {}

// Appended to Scalar's script, so every page that loads it agrees. Scalar loads Inter and
// JetBrains Mono from its CDN unless told not to; its font stacks fall back to the system's
// fonts. Its generated code samples fill in every optional parameter (a request the API refuses),
// so only the document's own samples (`x-codeSamples`) are shown.
const pageSettings = `
;(() => {
  const create = window.Scalar.createApiReference
  window.Scalar.createApiReference = (element, config) =>
    create(element, { ...config, withDefaultFonts: false, hiddenClients: true })
})()
`

const inlineScripts = (html: string): Array<string> => {
  const scripts: Array<string> = []
  for (let at = html.indexOf("<script>"); at >= 0; at = html.indexOf("<script>", at + 1)) {
    const end = html.indexOf("</script>", at)
    if (end < 0) break
    scripts.push(html.slice(at + "<script>".length, end))
  }
  return scripts
}

/** The page's policy: scripts from here and the page's own inline ones (by hash), nothing from elsewhere. */
const policyFor = (html: string) =>
  [
    "default-src 'none'",
    `script-src 'self' ${inlineScripts(html)
      .map((script) => `'sha256-${hash("sha256", script, "base64")}'`)
      .join(" ")}`,
    // Scalar's components set styles at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join("; ")

const bodyText = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag === "Uint8Array" ? (response.body.text ?? new TextDecoder().decode(response.body.body)) : undefined

// Scalar's script exactly as Effect's page inlines it, read from a page of an empty API.
const loadScalarScript = Effect.acquireUseRelease(
  Effect.sync(() => HttpRouter.toWebHandler(HttpApiScalar.layer(HttpApi.make("scalar")), { disableLogger: true })),
  ({ handler }) =>
    Effect.flatMap(
      Effect.promise(() => handler(new Request("http://localhost/docs")).then((response) => response.text())),
      (html) => {
        const [script] = inlineScripts(html)
        return script === undefined ? Effect.die(new Error("Scalar's page inlines no script")) : Effect.succeed(script)
      }
    ),
  ({ dispose }) => Effect.promise(dispose)
)

export const layer = Layer.effect(
  DocsAssets,
  Effect.gen(function* () {
    // Read on first use, not at start: most processes never serve the reference.
    const scalar = yield* Effect.cached(
      Effect.map(loadScalarScript, (inline) => {
        const text = inline + pageSettings
        const name = `scalar.${EntityTag.digest(Buffer.from(text))}.js`
        const response = HttpServerResponse.text(text, {
          contentType: "text/javascript; charset=utf-8",
          headers: { "cache-control": "public, max-age=31536000, immutable" }
        })
        return { inline, name, response }
      })
    )
    const pages = new WeakMap<HttpServerResponse.HttpServerResponse, HttpServerResponse.HttpServerResponse>()
    const page = (original: HttpServerResponse.HttpServerResponse) =>
      Effect.map(scalar, ({ inline, name }) => {
        const known = pages.get(original)
        if (known !== undefined) return known
        const html = bodyText(original)
        if (original.status !== 200 || html === undefined) return original
        const served = html.replace(
          `<script>${inline}</script>`,
          () => `<script src="${docsAssetsPrefix}${name}"></script>`
        )
        const response = HttpServerResponse.html(served).pipe(
          HttpServerResponse.setHeaders({
            "content-security-policy": policyFor(served),
            // Always revalidated (cheaply, by ETag): the page names the script of this release.
            "cache-control": "no-cache"
          })
        )
        pages.set(original, response)
        return response
      })
    const asset = (name: string) => Effect.map(scalar, (script) => (name === script.name ? script.response : undefined))
    return DocsAssets.of({ page, asset })
  })
)

/** The script's route (any other name there is 404 `resource_missing`) and the icon's. */
export const routes = HttpRouter.use(
  Effect.fn(function* (router) {
    const docs = yield* DocsAssets
    yield* router.add(
      "GET",
      docsAssetPattern,
      Effect.gen(function* () {
        const { name } = yield* HttpRouter.params
        const found = name === undefined ? undefined : yield* docs.asset(name)
        if (found !== undefined) return found
        const shownPath = (yield* CurrentRequest)?.shownPath ?? docsAssetsPrefix
        return ErrorResponse.of(ResourceMissing, ResourceMissing.route("GET", shownPath), 404)
      })
    )
    yield* router.add(
      "GET",
      faviconPath,
      HttpServerResponse.uint8Array(Favicon.bytes, {
        contentType: Favicon.contentType,
        headers: { "cache-control": Favicon.cacheControl }
      })
    )
  })
)
