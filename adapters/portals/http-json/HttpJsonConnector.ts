/**
 * The `http-json` connector: a generic poller for portals with a JSON REST API. The
 * configuration says where the invoices are (base URL, path, query), how to authenticate (bearer
 * token, basic, an API-key header, or OAuth 2.0 client credentials, each from secret references),
 * how the API pages
 * (page number, offset, cursor, `Link` header, or not at all), where the items are in an answer
 * and which item field holds what. Pages are fetched one at a time, so a pair of any size syncs
 * in bounded memory. Only the base URL's origin is ever contacted.
 */
import { Duration, Effect, Option, Redacted, Schema, Stream } from "effect"
import { Headers, type HttpClient } from "effect/http"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import { parseAmountCents, parseDate } from "../../../core/receivables/domain/PortalValues.ts"
import { makeStatusMapping, StatusWording } from "../../../core/receivables/domain/Status.ts"
import {
  type ConnectorFailed,
  configOf,
  configuredStatusMapping,
  type PairToFetch,
  permanentFailure
} from "../../../core/receivables/ports/PortalConnector.ts"
import { SecretReference } from "../../../core/shared/ports/Secrets.ts"
import { ClientAuthentication, clientCredentials } from "../portal-client/ClientCredentials.ts"
import type { HttpPortalConnector } from "../portal-client/HttpConnector.ts"
import {
  defaultMaxBodyBytes,
  jsonText,
  metadataText,
  nextLink,
  PortalUrl,
  requestJson,
  valueAt
} from "../portal-client/PortalHttp.ts"
import { unreadableDocument } from "../Unreadable.ts"

const Name = Schema.String.check(Schema.isNonEmpty())
const PositiveInt = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10_000 }))

// Credentials are secrets, and a configuration is stored and shown as it is: they come from the
// auth's secret references, never from the URL (`https://user:pass@host/`).
const WithoutCredentials = Schema.makeFilter(
  (text: string) => !URL.canParse(text) || (new URL(text).username === "" && new URL(text).password === ""),
  { expected: "a URL without credentials (no user:password@): secrets are references, given in auth" }
)

export const Auth = Schema.Union([
  Schema.Struct({ type: Schema.Literal("none") }),
  Schema.Struct({ type: Schema.Literal("bearer"), token: SecretReference }),
  Schema.Struct({ type: Schema.Literal("basic"), username: Name, password: SecretReference }),
  Schema.Struct({ type: Schema.Literal("header"), name: Name, value: SecretReference }),
  /** OAuth 2.0 client credentials: a bearer token from `tokenUrl`, kept until shortly before it expires. */
  Schema.Struct({
    type: Schema.Literal("oauth2"),
    tokenUrl: PortalUrl.check(WithoutCredentials),
    clientId: SecretReference,
    clientSecret: SecretReference,
    scope: Schema.optionalKey(Name),
    audience: Schema.optionalKey(Name),
    /** `basic` (default) or `post`: how the client id and secret reach the token endpoint. */
    clientAuthentication: Schema.optionalKey(ClientAuthentication)
  })
])

export const Pagination = Schema.Union([
  Schema.Struct({ style: Schema.Literal("none") }),
  /** `?page=1&per_page=100`: the next page until one comes back short. */
  Schema.Struct({
    style: Schema.Literal("page"),
    pageParam: Name,
    firstPage: Schema.optionalKey(Schema.Int),
    sizeParam: Name,
    size: PositiveInt
  }),
  /** `?offset=0&limit=100`: the next offset until a page comes back short. */
  Schema.Struct({ style: Schema.Literal("offset"), offsetParam: Name, limitParam: Name, limit: PositiveInt }),
  /** The answer carries the next page's cursor at `nextCursor` (a dotted path); sent back as `cursorParam`. */
  Schema.Struct({ style: Schema.Literal("cursor"), cursorParam: Name, nextCursor: Name }),
  /** The `Link` header's `rel="next"` (RFC 8288, as GitHub and many others page). */
  Schema.Struct({ style: Schema.Literal("link") })
])

export const HttpJsonConfig = Schema.Struct({
  baseUrl: PortalUrl.check(WithoutCredentials),
  /** The invoices' path under the base URL, with any fixed query (`invoices?supplier=4711`). */
  path: Schema.String.check(
    Schema.makeFilter((path: string) => !/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(path.trim()), {
      expected: "a path under baseUrl, not a URL of its own"
    })
  ),
  auth: Auth,
  pagination: Pagination,
  /** Where the items are in an answer (a dotted path; empty when the answer is the array). */
  items: Schema.String,
  fields: Schema.Struct({
    documentKey: Name,
    amount: Name,
    receivableDate: Name,
    status: Name,
    currency: Schema.optionalKey(Name),
    dueDate: Schema.optionalKey(Name),
    vendorReceivableId: Schema.optionalKey(Name),
    poNumber: Schema.optionalKey(Name)
  }),
  decimalSeparator: Schema.Literals([".", ","]),
  dateOrder: Schema.Literals(["YMD", "DMY", "MDY"]),
  /** The currency of every item, when items carry none. */
  currency: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[A-Z]{3}$/))),
  timeoutSeconds: Schema.optionalKey(Schema.Number.check(Schema.isBetween({ minimum: 1, maximum: 300 }))),
  /** This portal's own status wording, applied before the default table: `{"Booked": "APPROVED"}`. */
  statuses: Schema.optionalKey(StatusWording),
  /** The largest page read, in bytes (default 16 MiB, at most 1 GiB): a larger one fails the run. */
  maxPageBytes: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1024, maximum: 1024 ** 3 })))
})
export type HttpJsonConfig = typeof HttpJsonConfig.Type

const kind = "http-json"
// A portal that ignores its paging parameters would otherwise be polled forever.
const maxPages = 100_000

const optionalText = (item: unknown, path: string | undefined) => {
  if (path === undefined) return null
  const text = jsonText(valueAt(item, path))
  return text === "" ? null : text
}

/** One API item as a document; unreadable values pass on as they are, to be quarantined with the reason. */
export const documentOf = (config: HttpJsonConfig, item: unknown): FetchedDocument => {
  const fields = config.fields
  const mapped = new Set(Object.values(fields).map((path) => path.split(".")[0]))
  const receivableDate = jsonText(valueAt(item, fields.receivableDate))
  const dueDate = optionalText(item, fields.dueDate)
  const metadata: Record<string, string> = {}
  if (item !== null && typeof item === "object") {
    for (const [name, value] of Object.entries(item)) {
      const text = metadataText(value)
      if (!mapped.has(name) && text !== "") metadata[name] = text
    }
  }
  return {
    documentKey: jsonText(valueAt(item, fields.documentKey)),
    vendorReceivableId: optionalText(item, fields.vendorReceivableId),
    amountCents: parseAmountCents(jsonText(valueAt(item, fields.amount)), config.decimalSeparator) ?? Number.NaN,
    currency: (fields.currency === undefined ? config.currency : optionalText(item, fields.currency)) ?? "",
    receivableDate: parseDate(receivableDate, config.dateOrder) ?? receivableDate,
    dueDate: dueDate === null ? null : (parseDate(dueDate, config.dateOrder) ?? dueDate),
    portalStatus: jsonText(valueAt(item, fields.status)),
    poNumber: optionalText(item, fields.poNumber),
    metadata
  }
}

/** Why an item gave no document key. */
const missingKey = (config: HttpJsonConfig, item: unknown) => {
  const path = config.fields.documentKey
  const value = valueAt(item, path)
  return value === undefined || value === null
    ? `the item has no "${path}"`
    : typeof value === "object"
      ? `"${path}" holds ${Array.isArray(value) ? "an array" : "an object"}, not a document key`
      : `"${path}" is empty`
}

type Send = <A>(
  request: (headers: Readonly<Record<string, string>>) => Effect.Effect<A, ConnectorFailed, HttpClient.HttpClient>
) => Effect.Effect<A, ConnectorFailed, HttpClient.HttpClient>

/** Sends each request with the configured credentials; an OAuth token is renewed once when refused. */
const authorization = (config: HttpJsonConfig, pair: PairToFetch) =>
  Effect.gen(function* (): Effect.fn.Return<Send, ConnectorFailed, HttpClient.HttpClient> {
    const auth = config.auth
    const fixed =
      (headers: Readonly<Record<string, string>>): Send =>
      (request) =>
        request(headers)
    switch (auth.type) {
      case "none":
        return fixed({})
      case "bearer":
        return fixed({ authorization: `Bearer ${Redacted.value(yield* pair.secret(auth.token))}` })
      case "basic": {
        const password = Redacted.value(yield* pair.secret(auth.password))
        return fixed({ authorization: `Basic ${Buffer.from(`${auth.username}:${password}`).toString("base64")}` })
      }
      case "header":
        return fixed({ [auth.name.toLowerCase()]: Redacted.value(yield* pair.secret(auth.value)) })
      case "oauth2":
        return yield* clientCredentials({
          tokenUrl: new URL(auth.tokenUrl),
          clientId: Redacted.value(yield* pair.secret(auth.clientId)),
          clientSecret: yield* pair.secret(auth.clientSecret),
          scope: auth.scope,
          audience: auth.audience,
          clientAuthentication: auth.clientAuthentication ?? "basic",
          timeoutSeconds: config.timeoutSeconds ?? 30
        })
    }
  })

interface PageState {
  readonly url: URL
  readonly number: number
}

const withParams = (url: URL, params: Readonly<Record<string, string | number>>) => {
  const next = new URL(url)
  for (const [name, value] of Object.entries(params)) next.searchParams.set(name, String(value))
  return next
}

/** Where the page after this one is, by the configured style; none when this one was the last. */
const nextPage = (
  config: HttpJsonConfig,
  state: PageState,
  itemCount: number,
  body: unknown,
  headers: Headers.Headers
) => {
  const pagination = config.pagination
  switch (pagination.style) {
    case "none":
      return Option.none<PageState>()
    case "page":
      return itemCount < pagination.size
        ? Option.none<PageState>()
        : Option.some({
            url: withParams(state.url, { [pagination.pageParam]: (pagination.firstPage ?? 1) + state.number }),
            number: state.number + 1
          })
    case "offset":
      return itemCount < pagination.limit
        ? Option.none<PageState>()
        : Option.some({
            url: withParams(state.url, {
              [pagination.offsetParam]: Number(state.url.searchParams.get(pagination.offsetParam) ?? 0) + itemCount
            }),
            number: state.number + 1
          })
    case "cursor": {
      const cursor = jsonText(valueAt(body, pagination.nextCursor))
      return cursor === ""
        ? Option.none<PageState>()
        : Option.some({ url: withParams(state.url, { [pagination.cursorParam]: cursor }), number: state.number + 1 })
    }
    case "link": {
      const next = nextLink(Option.getOrNull(Headers.get(headers, "link")), state.url)
      return next === undefined ? Option.none<PageState>() : Option.some({ url: next, number: state.number + 1 })
    }
  }
}

const firstPage = (config: HttpJsonConfig): URL => {
  const base = config.baseUrl.endsWith("/") ? config.baseUrl : `${config.baseUrl}/`
  const url = new URL(config.path.replace(/^\//, ""), base)
  const pagination = config.pagination
  switch (pagination.style) {
    case "page":
      return withParams(url, {
        [pagination.pageParam]: pagination.firstPage ?? 1,
        [pagination.sizeParam]: pagination.size
      })
    case "offset":
      return withParams(url, { [pagination.offsetParam]: 0, [pagination.limitParam]: pagination.limit })
    default:
      return url
  }
}

const fetchDocuments = (pair: PairToFetch) =>
  Effect.gen(function* () {
    const config = yield* configOf({ kind, configSchema: HttpJsonConfig }, pair.config)
    const send = yield* authorization(config, pair)
    const origin = new URL(config.baseUrl).origin
    const timeoutSeconds = config.timeoutSeconds ?? 30
    const given = new Set<string>()
    return Stream.paginate({ url: firstPage(config), number: 1 } as PageState, (state) =>
      Effect.gen(function* () {
        if (state.number > maxPages)
          return yield* permanentFailure(`more than ${maxPages} pages: check the pagination settings`)
        const answer = yield* send((headers) =>
          requestJson(origin, {
            url: state.url,
            headers,
            timeoutSeconds,
            maxBodyBytes: config.maxPageBytes ?? defaultMaxBodyBytes,
            maxBodySetting: "maxPageBytes"
          })
        )
        const items = valueAt(answer.body, config.items)
        if (!Array.isArray(items)) {
          return yield* permanentFailure(
            `${state.url.origin}${state.url.pathname} has no array at "${config.items}" in its answer: check "items"`
          )
        }
        const documents = items.map((item) => documentOf(config, item))
        const keyed = documents.filter((document) => document.documentKey !== "")
        if (keyed.length > 0 && keyed.every((document) => given.has(document.documentKey))) {
          return yield* permanentFailure(`page ${state.number} repeats earlier items: check the pagination settings`)
        }
        // An item already given on an earlier page (pages shifted) counts once; one without a key is reported.
        const reported = documents.flatMap((document, i) => {
          if (document.documentKey === "") {
            return [unreadableDocument(`page ${state.number} item ${i + 1}`, [missingKey(config, items[i])])]
          }
          if (given.has(document.documentKey)) return []
          given.add(document.documentKey)
          return [document]
        })
        return [reported, nextPage(config, state, items.length, answer.body, answer.headers)] as const
      })
    )
  })

export const connector = {
  kind,
  configSchema: HttpJsonConfig,
  statusMapping: makeStatusMapping({}),
  statusMappingOf: configuredStatusMapping,
  defaultInterval: Duration.minutes(30),
  fetch: (pair) => Stream.unwrap(fetchDocuments(pair))
} satisfies HttpPortalConnector
