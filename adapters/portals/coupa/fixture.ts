/**
 * A mock Coupa instance for the conformance kit, following Coupa's published core API: an OAuth
 * 2.0 client-credentials token endpoint, and `GET /api/invoices` filtered by `supplier[id]`,
 * paged by `offset`/`limit` (at most 50), answering invoices with Coupa's hyphenated field names,
 * `status` and the separate `paid` flag.
 */
import { randomUUID } from "node:crypto"
import { Effect } from "effect"
import type { ConformanceFixture, SampleDocument, SampleDocuments } from "../conformance/Conformance.ts"
import { json, type MockAnswer, mockPortal } from "../http/MockPortal.ts"
import { connector } from "./CoupaConnector.ts"

const clientId = "receivables-sync"
const clientSecret = "cs_9aZ-41kPq0Lr7xYt"
const supplierId = 77

const days = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000)

/** A sample document as Coupa writes an invoice. */
export const invoiceOf = (document: SampleDocument, index: number) => {
  const [status, paid] = document.portalStatus.endsWith("; paid")
    ? [document.portalStatus.slice(0, -"; paid".length), true]
    : [document.portalStatus, false]
  return {
    id: Number(document.key),
    "invoice-number": document.vendorReceivableId,
    "invoice-date": `${document.receivableDate}T00:00:00-08:00`,
    status,
    paid,
    "payment-date": paid ? `${document.dueDate ?? document.receivableDate}T10:00:00-08:00` : null,
    "gross-total": index % 2 === 0 ? document.amountText : Number(document.amountText),
    currency: { id: 1, code: document.currency },
    "payment-term":
      document.dueDate === null
        ? null
        : {
            code: `Net ${days(document.receivableDate, document.dueDate)}`,
            "days-for-net-payment": days(document.receivableDate, document.dueDate)
          },
    "document-type": "Invoice",
    supplier: { id: supplierId, name: "Acme Industrial" },
    "invoice-lines": document.poNumber === null ? [] : [{ "line-num": 1, "order-header-num": document.poNumber }]
  }
}

export const configFor = (origin: string) => ({
  instanceUrl: origin,
  supplierId,
  clientId,
  clientSecret: { env: "COUPA_CLIENT_SECRET" },
  timeoutSeconds: 5
})

export const coupaInstance = (documents: SampleDocuments) => {
  const tokens = new Set<string>()
  return mockPortal((request, url, body): MockAnswer => {
    if (request.method === "POST" && url.pathname === "/oauth2/token") {
      const form = new URLSearchParams(body)
      if (form.get("grant_type") !== "client_credentials" || form.get("scope") !== "core.invoice.read") {
        return { status: 400, json: { error: "invalid_request" } }
      }
      if (form.get("client_id") !== clientId || form.get("client_secret") !== clientSecret) {
        return { status: 401, json: { error: "invalid_client" } }
      }
      const token = randomUUID()
      tokens.add(token)
      return json({ access_token: token, token_type: "bearer", expires_in: 86399 })
    }
    if (url.pathname !== "/api/invoices") return { status: 404, json: { errors: ["not found"] } }
    if (!tokens.has((request.headers.authorization ?? "").replace(/^Bearer /, ""))) return { status: 401 }
    if (url.searchParams.get("supplier[id]") !== String(supplierId)) return json([])
    const offset = Number(url.searchParams.get("offset") ?? 0)
    const limit = Math.min(50, Number(url.searchParams.get("limit") ?? 50))
    const invoices = []
    for (let i = offset; i < Math.min(offset + limit, documents.count); i++)
      invoices.push(invoiceOf(documents.at(i), i))
    return json(invoices)
  })
}

const failing = (answer: MockAnswer | undefined) =>
  Effect.map(
    mockPortal(() => answer),
    (portal) => ({ ...configFor(portal.origin), timeoutSeconds: 1 })
  )

export const fixture: ConformanceFixture = {
  connector,
  statuses: [
    ["draft", "PENDING"],
    ["pending_receipt", "PENDING"],
    ["pending_approval", "PENDING"],
    ["approved", "APPROVED"],
    ["approved; paid", "PAID"],
    ["on_hold", "DISPUTED"],
    ["ap_hold", "DISPUTED"],
    ["disputed", "DISPUTED"],
    ["voided", "DISPUTED"],
    ["abandoned", "DISPUTED"]
  ],
  amountNotations: [{ decimalSeparator: ".", groupsThousands: false }],
  portal: (documents) => Effect.map(coupaInstance(documents), (portal) => configFor(portal.origin)),
  invalidConfigs: [
    { config: { ...configFor("https://globex.coupahost.com"), supplierId: "77" }, field: "supplierId" },
    { config: { ...configFor("https://globex.coupahost.com"), clientSecret: clientSecret }, field: "clientSecret" },
    { config: { ...configFor("ftp://globex.coupahost.com") }, field: "instanceUrl" },
    { config: { ...configFor("https://globex.coupahost.com"), pageSize: 200 }, field: "pageSize" }
  ],
  failures: [
    {
      name: "the client secret is refused",
      retryable: false,
      portal: failing({ status: 401, json: { error: "invalid_client" } })
    },
    {
      name: "Coupa rate limits",
      retryable: true,
      retryAfterSeconds: 60,
      portal: failing({ status: 429, headers: { "retry-after": "60" } })
    },
    { name: "Coupa is down for maintenance", retryable: true, portal: failing({ status: 503 }) },
    { name: "the instance does not answer in time", retryable: true, portal: failing(undefined) }
  ],
  secrets: { COUPA_CLIENT_SECRET: clientSecret }
}
