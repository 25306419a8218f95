/**
 * UN/CEFACT Cross Industry Invoice (CII D16B, EN 16931; the XML that Factur-X attaches to its
 * PDF): the fields a receivable needs, from the elements the XML reader kept (by local name,
 * whatever the sender's prefixes), and UN/CEFACT's dates (`udt:DateTimeString` with its
 * `format`: 102 `20261102`, 203 and 204 with the time, 205 with an offset), which CDAR messages
 * use too. Pure.
 */
import { addDays, parseDate } from "../../../core/receivables/domain/PortalValues.ts"
import { childAt, childrenNamed, type XmlElement } from "../cxml/Xml.ts"
import { decimalCents } from "../cxml/XmlFiles.ts"
import { termDays, text, type UblInvoice } from "../peppol/Ubl.ts"

const agreement = "SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement"
const settlement = "SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement"

/** The invoice's elements below its root that the connector reads; lines and parties are let go. */
export const ciiPaths = [
  "ExchangedDocument",
  `${agreement}/BuyerReference`,
  `${agreement}/BuyerOrderReferencedDocument`,
  `${settlement}/InvoiceCurrencyCode`,
  `${settlement}/SpecifiedTradePaymentTerms`,
  `${settlement}/SpecifiedTradeSettlementHeaderMonetarySummation`
]

/**
 * Credit notes among UNTDID 1001's document types (EN 16931's list): not receivables, so a CII
 * document of one of these types is reported rather than read as an invoice.
 */
export const creditNoteTypes: ReadonlySet<string> = new Set([
  "81",
  "83",
  "261",
  "262",
  "296",
  "308",
  "381",
  "396",
  "420",
  "458",
  "532"
])

// CCYYMMDD, then optionally HHMM or HHMMSS, then optionally an offset; or the same in ISO 8601.
const stamp = /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ]?(\d{2}):?(\d{2})(?::?(\d{2})(\.\d{1,9})?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/

const written = (holder: XmlElement | undefined) => text(childAt(holder, "DateTimeString")) ?? text(holder) ?? ""

/** The `YYYY-MM-DD` of a UN/CEFACT date element (`ram:IssueDateTime` and the like), if it holds one. */
export const cefactDate = (holder: XmlElement | undefined): string | undefined => {
  const parts = stamp.exec(written(holder))
  return parts === null ? undefined : parseDate(`${parts[1]}-${parts[2]}-${parts[3]}`, "YMD")
}

/** The date, or what was written when it is not one (the sync quarantines the document naming the field). */
const dateOrWritten = (holder: XmlElement | undefined) => cefactDate(holder) ?? written(holder)

/**
 * A UN/CEFACT date and time as milliseconds since the epoch; `NaN` when it is not one. A time
 * without an offset is read as UTC, and a date alone as its midnight.
 */
export const cefactInstant = (holder: XmlElement | undefined): number => {
  const parts = stamp.exec(written(holder))
  const date = parts === null ? undefined : parseDate(`${parts[1]}-${parts[2]}-${parts[3]}`, "YMD")
  if (parts === null || date === undefined) return Number.NaN
  const [, , , , hours = "00", minutes = "00", seconds = "00", fraction = "", zone = "Z"] = parts
  const offset = zone === "Z" ? zone : `${zone.slice(0, 3)}:${zone.slice(-2)}`
  return Date.parse(`${date}T${hours}:${minutes}:${seconds}${fraction}${offset}`)
}

/** A `CrossIndustryInvoice` as a receivable's fields; values that cannot be read are passed on as written. */
export const ciiInvoice = (root: XmlElement): UblInvoice => {
  const document = childAt(root, "ExchangedDocument")
  const issueDate = dateOrWritten(childAt(document, "IssueDateTime"))
  const terms = childrenNamed(childAt(root, settlement), "SpecifiedTradePaymentTerms")
  const described = terms
    .map((term) => text(childAt(term, "Description")))
    .filter((description) => description !== undefined)
    .join("; ")
  const dueHolder = terms.map((term) => childAt(term, "DueDateDateTime")).find((due) => due !== undefined)
  const days = termDays(described)
  const summation = childAt(root, `${settlement}/SpecifiedTradeSettlementHeaderMonetarySummation`)
  const payable = childAt(summation, "DuePayableAmount") ?? childAt(summation, "GrandTotalAmount")
  const currency =
    payable?.attributes.currencyID?.trim() || text(childAt(root, `${settlement}/InvoiceCurrencyCode`)) || ""
  const amount = decimalCents(payable?.text ?? "", currency)
  const metadata: Record<string, string> = {}
  if (described !== "") metadata.payment_terms = described
  const buyerReference = text(childAt(root, `${agreement}/BuyerReference`))
  if (buyerReference !== undefined) metadata.buyer_reference = buyerReference
  const typeCode = text(childAt(document, "TypeCode"))
  if (typeCode !== undefined) metadata.invoice_type_code = typeCode
  return {
    number: text(childAt(document, "ID")) ?? "",
    issueDate,
    dueDate:
      dueHolder !== undefined
        ? dateOrWritten(dueHolder)
        : days !== undefined && issueDate.length === 10
          ? addDays(issueDate, days)
          : null,
    // Not a number of cents: the sync quarantines the document naming the amount.
    amountCents: "cents" in amount ? amount.cents : Number.NaN,
    currency,
    orderReference: text(childAt(root, `${agreement}/BuyerOrderReferencedDocument/IssuerAssignedID`)) ?? null,
    metadata
  }
}
