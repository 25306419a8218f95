/**
 * The `coupa` connector: a vendor's invoices in a debtor's Coupa instance, through Coupa's core
 * API (`GET /api/invoices`), authenticated with an OAuth 2.0 client-credentials grant
 * (`POST /oauth2/token`, scope `core.invoice.read`; the token kept while it lasts and renewed once
 * when refused, see `portal-client/ClientCredentials.ts`). Invoices are filtered by the vendor's
 * supplier id in that instance and paged by `offset`/`limit` (Coupa answers at most 50 a page),
 * in id order so pages do not shift while invoices are added.
 *
 * Coupa keeps an invoice's approval state (`status`) and its payment (`paid`) apart; a supplier
 * wants one answer, so the two are combined: an invoice marked paid is PAID whatever its
 * approval state, and its portal status reads `approved; paid`.
 */
import { Duration, Effect, Option, Schema, Stream } from "effect"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import { addDays, parseAmountCents, parseDate } from "../../../core/receivables/domain/PortalValues.ts"
import { makeStatusMapping, type Status } from "../../../core/receivables/domain/Status.ts"
import { configOf, type PairToFetch, permanentFailure } from "../../../core/receivables/ports/PortalConnector.ts"
import { SecretReference } from "../../../core/shared/ports/Secrets.ts"
import { clientCredentials } from "../portal-client/ClientCredentials.ts"
import type { HttpPortalConnector } from "../portal-client/HttpConnector.ts"
import { jsonText, PortalUrl, requestJson, valueAt } from "../portal-client/PortalHttp.ts"
import { unreadableDocument } from "../Unreadable.ts"

export const CoupaConfig = Schema.Struct({
  /** The debtor's Coupa instance, e.g. `https://globex.coupahost.com`. */
  instanceUrl: PortalUrl,
  /** The vendor's supplier id in that instance. */
  supplierId: Schema.Int.check(Schema.isGreaterThan(0)),
  /** The OAuth client the debtor's Coupa administrator created for this integration. */
  clientId: Schema.String.check(Schema.isNonEmpty()),
  clientSecret: SecretReference,
  pageSize: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 50 }))),
  timeoutSeconds: Schema.optionalKey(Schema.Number.check(Schema.isBetween({ minimum: 1, maximum: 300 })))
})
export type CoupaConfig = typeof CoupaConfig.Type

const kind = "coupa"
const scope = "core.invoice.read"

/** Coupa's invoice statuses, by what they mean for the supplier. */
const approvalStates: Readonly<Record<string, Status>> = {
  new: "PENDING",
  draft: "PENDING",
  pending_receipt: "PENDING",
  pending_approval: "PENDING",
  approved: "APPROVED",
  on_hold: "DISPUTED",
  ap_hold: "DISPUTED",
  booking_hold: "DISPUTED",
  disputed: "DISPUTED",
  voided: "DISPUTED",
  abandoned: "DISPUTED",
  withdrawn: "DISPUTED"
}

const paidSuffix = "; paid"

export const statusMapping = makeStatusMapping({
  ...approvalStates,
  ...Object.fromEntries(Object.keys(approvalStates).map((state) => [`${state}${paidSuffix}`, "PAID" as const]))
})

/** One Coupa invoice as a document. */
export const documentOf = (invoice: unknown): FetchedDocument => {
  const field = (path: string) => jsonText(valueAt(invoice, path))
  const invoiceDate = field("invoice-date")
  const receivableDate = parseDate(invoiceDate, "YMD") ?? invoiceDate
  // Coupa gives the net terms, not the due date: the due date is the invoice date plus those days.
  const netDays = valueAt(invoice, "payment-term.days-for-net-payment")
  const dueDate =
    typeof netDays === "number" && Number.isInteger(netDays) && receivableDate.length === 10
      ? addDays(receivableDate, netDays)
      : null
  const lines = valueAt(invoice, "invoice-lines")
  const poNumber = Array.isArray(lines) ? jsonText(valueAt(lines[0], "order-header-num")) : ""
  const paid = valueAt(invoice, "paid") === true
  const metadata: Record<string, string> = {}
  for (const [name, path] of [
    ["payment_terms", "payment-term.code"],
    ["document_type", "document-type"],
    ["payment_date", "payment-date"],
    ["supplier_name", "supplier.name"]
  ] as const) {
    const value = field(path)
    if (value !== "") metadata[name] = value
  }
  return {
    documentKey: field("id"),
    vendorReceivableId: field("invoice-number") || null,
    amountCents: parseAmountCents(field("gross-total"), ".") ?? Number.NaN,
    currency: field("currency.code"),
    receivableDate,
    dueDate,
    portalStatus: `${field("status")}${paid ? paidSuffix : ""}`,
    poNumber: poNumber === "" ? null : poNumber,
    metadata
  }
}

const fetchDocuments = (pair: PairToFetch) =>
  Effect.gen(function* () {
    const config = yield* configOf({ kind, configSchema: CoupaConfig }, pair.config)
    const origin = new URL(config.instanceUrl).origin
    const timeoutSeconds = config.timeoutSeconds ?? 30
    const limit = config.pageSize ?? 50
    const send = yield* clientCredentials({
      tokenUrl: new URL("/oauth2/token", origin),
      clientId: config.clientId,
      clientSecret: yield* pair.secret(config.clientSecret),
      scope,
      clientAuthentication: "post",
      timeoutSeconds
    })
    return Stream.paginate(0, (offset) =>
      Effect.gen(function* () {
        const url = new URL("/api/invoices", origin)
        url.search = new URLSearchParams({
          "supplier[id]": String(config.supplierId),
          order_by: "id",
          dir: "asc",
          offset: String(offset),
          limit: String(limit)
        }).toString()
        const answer = yield* send((headers) => requestJson(origin, { url, headers, timeoutSeconds }))
        if (!Array.isArray(answer.body)) {
          return yield* permanentFailure(`${origin}/api/invoices did not answer a list`)
        }
        const invoices: ReadonlyArray<unknown> = answer.body
        // An invoice without an id cannot be a receivable: it is reported where it was, not dropped.
        const documents = invoices.map((invoice, i) => {
          const document = documentOf(invoice)
          return document.documentKey === ""
            ? unreadableDocument(`the invoice at offset ${offset + i}`, ["the invoice has no id"])
            : document
        })
        return [
          documents,
          invoices.length < limit ? Option.none<number>() : Option.some(offset + invoices.length)
        ] as const
      })
    )
  })

export const connector = {
  kind,
  configSchema: CoupaConfig,
  statusMapping,
  defaultInterval: Duration.hours(1),
  fetch: (pair) => Stream.unwrap(fetchDocuments(pair))
} satisfies HttpPortalConnector
