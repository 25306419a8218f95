/**
 * The `http-json` connector's portal for the conformance kit: a mock REST API at
 * `/api/v2/invoices` that pages in the configured style, requires its API key, and writes
 * amounts and dates the way its configuration says (`1234.56` and ISO dates, or `1.234,56` and
 * DD.MM.YYYY as European portals do).
 */
import { Effect } from "effect"
import type { AmountNotation, ConformanceFixture, SampleDocument, SampleDocuments } from "../conformance/Conformance.ts"
import { json, type MockAnswer, mockPortal } from "../http/MockPortal.ts"
import { connector } from "./HttpJsonConnector.ts"

export type PagingStyle = "page" | "offset" | "cursor" | "link"

const apiKey = "pk_live_6fQz1x9Vb3NwE0hT"
const pageSize = 250
const path = "/api/v2/invoices"

const europeanDate = (iso: string | null) => (iso === null ? null : iso.split("-").reverse().join("."))

const itemOf = (document: SampleDocument, notation: AmountNotation, index: number) => {
  const european = notation.decimalSeparator === ","
  return {
    id: Number(document.key),
    number: document.vendorReceivableId,
    // Portals write amounts as numbers or as text; both must come out exact.
    total: index % 2 === 0 && !european ? Number(document.amountText) : document.amountText,
    currency: document.currency,
    issued_on: european ? europeanDate(document.receivableDate) : document.receivableDate,
    due_on: european ? europeanDate(document.dueDate) : document.dueDate,
    state: document.portalStatus,
    purchase_order: document.poNumber,
    payment_terms: index % 2 === 0 ? "NET30" : "NET60",
    buyer: { contact: "ap@globex.example" }
  }
}

const pagingConfig = (style: PagingStyle) => {
  switch (style) {
    case "page":
      return { style, pageParam: "page", sizeParam: "per_page", size: pageSize }
    case "offset":
      return { style, offsetParam: "offset", limitParam: "limit", limit: pageSize }
    case "cursor":
      return { style, cursorParam: "cursor", nextCursor: "meta.next_cursor" }
    case "link":
      return { style }
  }
}

export const configFor = (origin: string, style: PagingStyle, notation: AmountNotation) => ({
  baseUrl: `${origin}/api/v2/`,
  path: "invoices?supplier=ACME-4711",
  auth: { type: "header", name: "X-Api-Key", value: { env: "GLOBEX_PORTAL_KEY" } },
  pagination: pagingConfig(style),
  items: "data",
  fields: {
    documentKey: "id",
    vendorReceivableId: "number",
    amount: "total",
    currency: "currency",
    receivableDate: "issued_on",
    dueDate: "due_on",
    status: "state",
    poNumber: "purchase_order"
  },
  decimalSeparator: notation.decimalSeparator,
  dateOrder: notation.decimalSeparator === "," ? "DMY" : "YMD",
  timeoutSeconds: 5
})

/** The slice a request asks for, in the style the portal pages in. */
const pageOf = (style: PagingStyle, url: URL, count: number) => {
  const number = (name: string, fallback: number) => Number(url.searchParams.get(name) ?? fallback)
  switch (style) {
    case "page": {
      const size = number("per_page", 20)
      return { from: (number("page", 1) - 1) * size, to: number("page", 1) * size }
    }
    case "offset":
      return { from: number("offset", 0), to: number("offset", 0) + number("limit", 20) }
    case "cursor": {
      const cursor = url.searchParams.get("cursor")
      const from = cursor === null ? 0 : Number(Buffer.from(cursor, "base64url").toString())
      return { from, to: from + pageSize }
    }
    case "link":
      return { from: number("after", 0), to: number("after", 0) + pageSize }
  }
  return { from: 0, to: count }
}

export const invoicesPortal = (documents: SampleDocuments, notation: AmountNotation, style: PagingStyle) =>
  mockPortal((request, url): MockAnswer => {
    if (url.pathname !== path) return { status: 404, json: { error: "not found" } }
    if (url.searchParams.get("supplier") !== "ACME-4711") return { status: 400, json: { error: "supplier" } }
    if (request.headers["x-api-key"] !== apiKey) return { status: 401, json: { error: "invalid api key" } }
    const { from, to } = pageOf(style, url, documents.count)
    const data = []
    for (let i = from; i < Math.min(to, documents.count); i++) data.push(itemOf(documents.at(i), notation, i))
    const more = to < documents.count
    if (style === "cursor") {
      return json({ data, meta: { next_cursor: more ? Buffer.from(String(to)).toString("base64url") : null } })
    }
    if (style === "link" && more) {
      const next = new URL(url)
      next.searchParams.set("after", String(to))
      return json({ data }, { link: `<${next.pathname}${next.search}>; rel="next", <${path}>; rel="first"` })
    }
    return json({ data })
  })

const anyNotation: AmountNotation = { decimalSeparator: ".", groupsThousands: false }

/** A portal that answers every request the same way. */
const failing = (answer: MockAnswer | undefined, style: PagingStyle = "page") =>
  Effect.map(
    mockPortal(() => answer),
    (portal) => ({ ...configFor(portal.origin, style, anyNotation), timeoutSeconds: 1 })
  )

export const fixtureFor = (style: PagingStyle): ConformanceFixture => ({
  connector,
  statuses: [
    ["open", "PENDING"],
    ["pending_approval", "PENDING"],
    ["approved", "APPROVED"],
    ["payment_scheduled", "APPROVED"],
    ["paid", "PAID"],
    ["disputed", "DISPUTED"],
    ["rejected", "DISPUTED"],
    ["sold", "SOLD"]
  ],
  amountNotations: [
    { decimalSeparator: ".", groupsThousands: false },
    { decimalSeparator: ",", groupsThousands: true }
  ],
  portal: (documents, notation) =>
    Effect.map(invoicesPortal(documents, notation, style), (portal) => configFor(portal.origin, style, notation)),
  invalidConfigs: [
    { config: { ...configFor("http://example.com", style, anyNotation) }, field: "baseUrl" },
    {
      config: { ...configFor("https://portal.example.com", style, anyNotation), path: "//elsewhere.example/invoices" },
      field: "path"
    },
    {
      config: {
        ...configFor("https://portal.example.com", style, anyNotation),
        auth: { type: "bearer", token: "s3cret" }
      },
      field: "auth.token"
    },
    {
      config: { ...configFor("https://portal.example.com", style, anyNotation), pagination: { style: "page" } },
      field: "pagination.pageParam"
    },
    {
      config: { ...configFor("https://portal.example.com", style, anyNotation), fields: { documentKey: "id" } },
      field: "fields.amount"
    },
    {
      config: { ...configFor("https://portal.example.com", style, anyNotation), timeoutSeconds: 0 },
      field: "timeoutSeconds"
    }
  ],
  failures: [
    {
      name: "503 with Retry-After",
      retryable: true,
      retryAfterSeconds: 120,
      portal: failing({ status: 503, headers: { "retry-after": "120" } })
    },
    {
      name: "429 with Retry-After",
      retryable: true,
      retryAfterSeconds: 30,
      portal: failing({ status: 429, headers: { "retry-after": "30" } })
    },
    {
      name: "the key is refused",
      retryable: false,
      portal: failing({ status: 401, json: { error: "invalid api key" } })
    },
    { name: "the portal does not answer in time", retryable: true, portal: failing(undefined) },
    {
      name: "a redirect to another host",
      retryable: false,
      portal: failing({ status: 302, headers: { location: "http://127.0.0.2:9/api/v2/invoices" } })
    },
    {
      name: "a Link header pointing to another host",
      retryable: false,
      portal: failing(
        { status: 200, headers: { link: '<https://elsewhere.example/p2>; rel="next"' }, json: { data: [{ id: 1 }] } },
        "link"
      )
    },
    { name: "the answer has no items where configured", retryable: false, portal: failing(json({ invoices: [] })) }
  ],
  secrets: { GLOBEX_PORTAL_KEY: apiKey }
})
