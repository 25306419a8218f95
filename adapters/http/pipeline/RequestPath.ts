/**
 * The one decision about a request's path, taken before anything else looks at it: the path as
 * received (never resolved, decoded or normalized) and the route it names exactly, if any.
 * Routing, the audit log, metrics and the probe exemptions all read this decision, so no two of
 * them can disagree about which resource a request reached. Paths are exact: case-sensitive, no
 * trailing slash, no empty segment, no `;` parameters, no dot segments, no backslash, and only
 * an id is a variable segment (last, or followed by one fixed segment: `/:id/test`). The dashboard, when the app mounts it, owns every
 * path under exactly `/dashboard` made of plain segments (it routes them itself).
 */
import { Context } from "effect"
import { HttpApi } from "effect/http-api"
import { redactKeys } from "../../../core/access/domain/ApiKey.ts"
import { Api } from "../../../core/api/Api.ts"
import * as Redaction from "../../../core/shared/domain/Redaction.ts"

/** A route: its pattern (as metrics label it) and the methods it answers. */
export interface Route {
  readonly pattern: string
  /** Liveness and readiness: not audited, so that probes never depend on the database. */
  readonly probe: boolean
  /** An answer that does not change while the process runs: served compressed and cached. */
  readonly static?: boolean
  /** An endpoint of the API: its answers carry an ETag and are compressed per request. */
  readonly api?: boolean
  /** The methods the API answers on this path (`Allow` of a 405); GET where unset. */
  readonly methods?: ReadonlyArray<string>
  /** A page of the dashboard: audited and limited per address, but answered as HTML, not API JSON. */
  readonly dashboard?: boolean
}

/** Whether the dashboard's pages are served here; set by the app (`DASHBOARD`), off by default. */
export const DashboardMounted = Context.Reference<boolean>("adapters/http/DashboardMounted", {
  defaultValue: () => false
})

export const dashboardPath = "/dashboard"
const dashboardRoute: Route = { pattern: dashboardPath, probe: false, dashboard: true }
// Plain segments only: letters, digits, `-`, `_`, and one dotted extension (`pico.css`). No
// percent-encoding, dot segment, empty segment, `;` or backslash can pass.
const dashboardPaths = /^\/dashboard(?:\/[A-Za-z0-9_-]+(?:\.[a-z]+)?)*$/

// The dashboard's secret tokens (an invite link's, a session's): 43 base64url characters,
// wherever they stand, since a pasted link brings whatever follows it (`.`, `,`, `)`, `/`, `%20`)
// and may be mangled before it (`//dashboard`). A longer run may be a token with something stuck
// to it (`q=x<token>`); no id or value of this API is that long, so the whole run goes.
const tokenShaped = Redaction.matchesOf(/[A-Za-z0-9_-]{43,}/g)
// Whatever follows an invite link's `invite/`: a token cut short is still most of a secret.
const afterInvite = Redaction.matchesOf(/invite\/+(?!\[redacted\])([^/?#&]+)/gi)

/**
 * A path or query as logs, traces and the audit log keep it: key secrets (`redactKeys`, with the
 * brand of this service's keys) and the dashboard's tokens redacted, the rest as received.
 */
export const redactSecrets = (text: string, keyBrand: string) =>
  Redaction.redactFound(redactKeys(text, keyBrand), [tokenShaped, afterInvite], "[redacted: an encoded token]")

export interface PathDecision {
  /** The path exactly as the request line carried it, without the query. */
  readonly path: string
  /** The query as received, without the `?`. */
  readonly query: string
  /** The route the path names exactly; undefined for every other path (answered 404). */
  readonly route: Route | undefined
}

// The API's endpoints, read from the contract (`/v1/receivables/:id` and the like), with the
// methods each path answers.
const apiMethods = new Map<string, Array<string>>()
HttpApi.reflect(Api, {
  onGroup: () => undefined,
  onEndpoint: ({ endpoint }) => {
    apiMethods.set(endpoint.path, [...(apiMethods.get(endpoint.path) ?? []), endpoint.method])
  }
})
const apiPatterns = [...apiMethods.keys()]
const methodOrder = ["GET", "POST", "PATCH", "PUT", "DELETE"]
const apiRoute = (pattern: string): Route => ({
  pattern,
  probe: false,
  api: true,
  methods: apiMethods.get(pattern)!.toSorted((a, b) => methodOrder.indexOf(a) - methodOrder.indexOf(b))
})

export const openApiPath = "/v1/openapi.json"
export const docsPath = "/docs"
export const faviconPath = "/favicon.ico"
/** The reference page's script, by name (`DocsAssets.ts`). */
export const docsAssetsPrefix = "/docs/assets/"
export const docsAssetPattern = `${docsAssetsPrefix}:name`

const fixedRoutes: ReadonlyArray<Route> = [
  ...apiPatterns.filter((pattern) => !pattern.includes(":")).map(apiRoute),
  { pattern: openApiPath, probe: false, static: true },
  { pattern: docsPath, probe: false, static: true },
  { pattern: faviconPath, probe: false, static: true },
  { pattern: "/health", probe: true },
  { pattern: "/ready", probe: true }
]
const byPath = new Map(fixedRoutes.map((route) => [route.pattern, route]))

// Patterns with one variable last segment (`/v1/receivables/:id`), by their fixed part.
const variableRoutes = new Map<string, Route>([
  ...apiPatterns
    .filter((pattern) => /^[^:]*\/:[a-z]+$/i.test(pattern))
    .map((pattern): [string, Route] => [pattern.slice(0, pattern.lastIndexOf("/") + 1), apiRoute(pattern)]),
  [docsAssetsPrefix, { pattern: docsAssetPattern, probe: false, static: true }]
])

// Patterns with one variable segment followed by a fixed one (`/v1/webhook_endpoints/:id/test`),
// by their fixed part before it and the last segment.
const innerVariableRoutes = new Map<string, Route>(
  apiPatterns
    .filter((pattern) => /^[^:]*\/:[a-z]+\/[a-z_]+$/i.test(pattern))
    .map((pattern): [string, Route] => {
      const [, head, tail] = /^(.*\/):[a-z]+(\/[a-z_]+)$/i.exec(pattern)!
      return [`${head}${tail}`, apiRoute(pattern)]
    })
)

// A variable segment is passed to its route as it is (a malformed id is then "no such
// receivable", like an unknown one), except what could be read as more than one segment or as
// another path: a `;` parameter, a backslash, an encoded slash or backslash, a dot segment.
const isVariableSegment = (segment: string) =>
  segment !== "" && !/[;\\]|%2f|%5c/i.test(segment) && !/^(?:\.|%2e){1,2}$/i.test(segment)

/**
 * The router's settings: it must route every path decided here. Its default refuses a variable
 * segment over 100 characters, and such a request (`/v1/receivables/rcv_` and 5,000 more) then
 * found no route under a path decided to exist, and was answered 405. The request line's own
 * bound (16 KiB, `NodeServer`) is the segment's bound; a malformed id is then the documented 404.
 */
export const routerConfig = { maxParamLength: Number.MAX_SAFE_INTEGER }

/** Every path that names a route exactly, for tests and the router's own table. */
export const routePatterns: ReadonlyArray<string> = [
  ...fixedRoutes.map((r) => r.pattern),
  ...variableRoutes.keys(),
  ...[...innerVariableRoutes.values()].map((r) => r.pattern)
]

/** The decision for a request target (`request.url`: the path and query as received). */
export const decide = (target: string, options: { readonly dashboard?: boolean } = {}): PathDecision => {
  const queryAt = target.indexOf("?")
  const path = queryAt < 0 ? target : target.slice(0, queryAt)
  const query = queryAt < 0 ? "" : target.slice(queryAt + 1)
  if (options.dashboard === true && dashboardPaths.test(path)) return { path, query, route: dashboardRoute }
  const fixed = byPath.get(path)
  if (fixed !== undefined) return { path, query, route: fixed }
  const slash = path.lastIndexOf("/")
  const variable = variableRoutes.get(path.slice(0, slash + 1))
  if (variable !== undefined) {
    return { path, query, route: isVariableSegment(path.slice(slash + 1)) ? variable : undefined }
  }
  const before = path.lastIndexOf("/", slash - 1)
  const inner = before < 0 ? undefined : innerVariableRoutes.get(`${path.slice(0, before + 1)}${path.slice(slash)}`)
  const route = inner !== undefined && isVariableSegment(path.slice(before + 1, slash)) ? inner : undefined
  return { path, query, route }
}
