/**
 * The fields of a UBL 2.1 invoice (Peppol BIS Billing 3.0, EN 16931) a receivable needs, from
 * the elements the XML reader kept (by local name, whatever the sender's prefixes). Used by the
 * `peppol` and `fr-lifecycle` connectors. Pure.
 */
import { addDays, parseAmountCents, parseDate } from "../../../core/receivables/domain/PortalValues.ts"
import { childAt, childrenNamed, type XmlElement } from "../cxml/Xml.ts"
import { moneyText } from "../cxml/XmlFiles.ts"

/** The invoice's elements below its root that the connectors read; lines and parties are let go. */
export const invoicePaths = [
  "ID",
  "IssueDate",
  "DueDate",
  "InvoiceTypeCode",
  "DocumentCurrencyCode",
  "BuyerReference",
  "OrderReference",
  "PaymentTerms",
  "LegalMonetaryTotal"
]

/** A credit note's elements: what it credits, and by how much. */
export const creditNotePaths = ["ID", "IssueDate", "DocumentCurrencyCode", "BillingReference", "LegalMonetaryTotal"]

/** An element's own text, trimmed; absent when the element is, or when it holds only white space. */
export const text = (element: XmlElement | undefined) => {
  const value = element?.text.trim()
  return value === undefined || value === "" ? undefined : value
}

export interface UblInvoice {
  readonly number: string
  /** As written, when it is not a date: the sync quarantines the document naming the field. */
  readonly issueDate: string
  readonly dueDate: string | null
  readonly amountCents: number
  readonly currency: string
  readonly orderReference: string | null
  readonly metadata: Readonly<Record<string, string>>
}

// "Payment within 30 days", "30 days net", "Net 30 days": the due date when the invoice has none.
export const termDays = (terms: string | undefined) => {
  const days = terms === undefined ? undefined : /(\d{1,3})\s*(?:days|jours)/i.exec(terms)?.[1]
  return days === undefined ? undefined : Number(days)
}

/** An `Invoice` as a receivable's fields; values that cannot be read are passed on as written. */
export const ublInvoice = (root: XmlElement): UblInvoice => {
  const written = text(childAt(root, "IssueDate")) ?? ""
  const issueDate = parseDate(written, "YMD") ?? written
  const terms = childrenNamed(root, "PaymentTerms")
    .map((term) => text(childAt(term, "Note")))
    .filter((note) => note !== undefined)
    .join("; ")
  const due = text(childAt(root, "DueDate"))
  const days = termDays(terms)
  const payable = childAt(root, "LegalMonetaryTotal/PayableAmount")
  const metadata: Record<string, string> = {}
  if (terms !== "") metadata.payment_terms = terms
  const buyerReference = text(childAt(root, "BuyerReference"))
  if (buyerReference !== undefined) metadata.buyer_reference = buyerReference
  const typeCode = text(childAt(root, "InvoiceTypeCode"))
  if (typeCode !== undefined) metadata.invoice_type_code = typeCode
  return {
    number: text(childAt(root, "ID")) ?? "",
    issueDate,
    dueDate:
      due !== undefined
        ? (parseDate(due, "YMD") ?? due)
        : days !== undefined && issueDate.length === 10
          ? addDays(issueDate, days)
          : null,
    amountCents: parseAmountCents(moneyText(payable) ?? "", ".") ?? Number.NaN,
    currency: payable?.attributes.currencyID?.trim() ?? text(childAt(root, "DocumentCurrencyCode")) ?? "",
    orderReference: text(childAt(root, "OrderReference/ID")) ?? null,
    metadata
  }
}

export interface UblCreditNote {
  readonly number: string
  /** The invoice it credits (BillingReference), when it names one. */
  readonly invoice: { readonly number: string; readonly issueDate: string | undefined } | undefined
  readonly amountCents: number
  readonly currency: string
}

export const ublCreditNote = (root: XmlElement): UblCreditNote => {
  const reference = childAt(root, "BillingReference/InvoiceDocumentReference")
  const number = text(childAt(reference, "ID"))
  const payable = childAt(root, "LegalMonetaryTotal/PayableAmount")
  return {
    number: text(childAt(root, "ID")) ?? "",
    invoice: number === undefined ? undefined : { number, issueDate: text(childAt(reference, "IssueDate")) },
    amountCents: parseAmountCents(moneyText(payable) ?? "", ".") ?? Number.NaN,
    currency: payable?.attributes.currencyID?.trim() ?? text(childAt(root, "DocumentCurrencyCode")) ?? ""
  }
}
