/**
 * The labelled evaluation set for `normalizeStatus`: status texts drawn from the researched
 * products (the vocabulary's wordings, the forms their APIs and exports write them in, and further
 * wordings from the same sources), each labelled by the status policy. It is split by product into
 * a development half and a test half; only the development half may be used to tune the rules.
 */
import type { Status } from "../../core/receivables/domain/Status.ts"
import { statusVocabulary } from "../../core/receivables/domain/StatusVocabulary.ts"

export interface StatusCase {
  readonly product: string
  readonly text: string
  readonly expected: Status
}

type Row = readonly [text: string, expected: Status]
const more = (product: string, rows: ReadonlyArray<Row>): ReadonlyArray<StatusCase> =>
  rows.map(([text, expected]) => ({ product, text, expected }))

// How an export or API writes a wording: "PARTIALLY_PAID", "partiallyPaid", "partially-paid".
const words = (text: string) => text.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0)
const apiForms = [
  (text: string) => words(text).join("_").toUpperCase(),
  (text: string) =>
    words(text)
      .map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()))
      .join(""),
  (text: string) => words(text).join("-").toLowerCase()
]

const researched: ReadonlyArray<StatusCase> = statusVocabulary
  .filter((entry) => entry.product !== "Partner Receivables API")
  .flatMap((entry, i) => {
    const base = { product: entry.product, text: entry.text, expected: entry.status }
    const form = apiForms[i % apiForms.length]!(entry.text)
    return form === entry.text || words(entry.text).length < 2 ? [base] : [base, { ...base, text: form }]
  })

// Wordings from the same sources that the vocabulary does not list verbatim.
const further: ReadonlyArray<StatusCase> = [
  ...more("Rapyd", [
    ["draft", "PENDING"],
    ["open", "PENDING"],
    ["paid", "PAID"],
    ["deleted", "DISPUTED"],
    ["uncollectible", "DISPUTED"],
    ["void", "DISPUTED"],
    ["canceled", "DISPUTED"]
  ]),
  ...more("Mollie", [
    ["draft", "PENDING"],
    ["overdue", "PENDING"],
    ["paid", "PAID"],
    ["cancelled", "DISPUTED"],
    ["failed", "DISPUTED"]
  ]),
  ...more("UniBee", [
    ["Draft", "PENDING"],
    ["Awaiting payment", "APPROVED"],
    ["Paid", "PAID"],
    ["Failed", "DISPUTED"],
    ["Cancelled", "DISPUTED"],
    ["Reversed", "DISPUTED"],
    ["Refunded", "DISPUTED"]
  ]),
  ...more("OpenMeter", [
    ["Draft", "PENDING"],
    ["Issued", "PENDING"],
    ["Overdue", "PENDING"],
    ["Uncollectible", "DISPUTED"],
    ["Paid", "PAID"],
    ["Void", "DISPUTED"],
    ["Deleted", "DISPUTED"],
    ["payment_processing.pending", "APPROVED"],
    ["draft.waiting_auto_approval", "PENDING"]
  ]),
  ...more("Harpoon", [
    ["Draft", "PENDING"],
    ["Sent", "PENDING"],
    ["Viewed", "PENDING"],
    ["Partial", "APPROVED"],
    ["Paid", "PAID"],
    ["Overdue", "PENDING"],
    ["Canceled", "DISPUTED"]
  ]),
  ...more("Request Finance", [
    ["open", "PENDING"],
    ["accepted", "APPROVED"],
    ["declaredPaid", "PAID"],
    ["canceled", "DISPUTED"],
    ["rejected", "DISPUTED"],
    ["scheduled", "APPROVED"],
    ["draft", "PENDING"],
    ["paid", "PAID"]
  ]),
  ...more("Square", [
    ["DRAFT", "PENDING"],
    ["PAID", "PAID"],
    ["CANCELED", "DISPUTED"],
    ["Partially paid", "APPROVED"],
    ["Payment pending", "APPROVED"],
    ["Partially refunded", "DISPUTED"]
  ]),
  ...more("HL7 FHIR Invoice", [
    ["draft", "PENDING"],
    ["cancelled", "DISPUTED"],
    ["entered in error", "DISPUTED"]
  ]),
  ...more("Invoice Ninja", [
    ["STATUS_DRAFT", "PENDING"],
    ["STATUS_SENT", "PENDING"],
    ["STATUS_PAID", "PAID"],
    ["STATUS_CANCELLED", "DISPUTED"],
    ["STATUS_OVERDUE", "PENDING"],
    ["STATUS_UNPAID", "PENDING"]
  ]),
  ...more("JTL", [
    ["UNPAID", "PENDING"],
    ["PARTIALLY_PAID", "APPROVED"],
    ["PAID", "PAID"],
    ["Completely paid", "PAID"]
  ]),
  ...more("Tera", [
    ["Submitted", "PENDING"],
    ["Approved", "APPROVED"],
    ["Partially Paid", "APPROVED"],
    ["Matched", "PENDING"],
    ["Unmatched", "PENDING"],
    ["Partial Match", "PENDING"],
    ["Not a Bill", "ACKNOWLEDGED"],
    ["Closed / Void / Cancelled", "DISPUTED"]
  ]),
  ...more("ServiceNow Business Portal", [
    ["Draft", "PENDING"],
    ["Received", "PENDING"],
    ["Accepted", "APPROVED"],
    ["Rejected", "DISPUTED"],
    ["Pending payment", "APPROVED"],
    ["Canceled", "DISPUTED"],
    ["Paid", "PAID"],
    ["Partially paid", "APPROVED"]
  ]),
  ...more("Aspire", [
    ["Draft", "PENDING"],
    ["Paid", "PAID"],
    ["Cancelled", "DISPUTED"],
    ["Due in 5 days", "PENDING"],
    ["Overdue by 3 days", "PENDING"]
  ]),
  ...more("Red Hat 3scale", [
    ["Open", "PENDING"],
    ["Pending", "PENDING"],
    ["Unpaid", "PENDING"],
    ["Paid", "PAID"],
    ["Failed", "DISPUTED"],
    ["Cancelled", "DISPUTED"]
  ]),
  ...more("OFX bill payment", [
    ["SCHEDULED", "APPROVED"],
    ["PROCESSED", "APPROVED"],
    ["CANCELLED", "DISPUTED"],
    ["PAID_OUT_OF_BAND", "PAID"]
  ]),
  ...more("Brinta", [
    ["received", "PENDING"],
    ["in process", "PENDING"],
    ["failed", "DISPUTED"],
    ["canceled", "DISPUTED"],
    ["pending", "PENDING"],
    ["approved", "APPROVED"],
    ["rejected", "DISPUTED"]
  ]),
  ...more("Microsoft Dynamics AX 2012", [
    ["InProcess", "PENDING"],
    ["ManualCancel", "DISPUTED"],
    ["Cancellation", "DISPUTED"],
    ["Submitted", "PENDING"],
    ["In review", "PENDING"],
    ["Change requested", "PENDING"]
  ]),
  ...more("Microsoft Dynamics GP", [
    ["Submitted", "PENDING"],
    ["Pending Approval", "PENDING"],
    ["Approved", "APPROVED"],
    ["Rejected", "DISPUTED"]
  ]),
  ...more("Dolibarr", [
    ["Brouillon", "PENDING"],
    ["Validée (non payée)", "APPROVED"],
    ["Payée", "PAID"],
    ["Abandonnée", "DISPUTED"],
    ["Non payée", "PENDING"]
  ]),
  ...more("French e-invoicing lifecycle (CDAR Flow 6)", [
    ["Approuvée partiellement", "DISPUTED"],
    ["Rejetée sémantique", "DISPUTED"],
    ["Annulée", "DISPUTED"],
    ["Affacturée", "SOLD"],
    ["Paiement reçu", "PAID"],
    ["En attente de validation", "PENDING"]
  ]),
  ...more("Peppol Invoice Response (UNCL4343 subset)", [
    ["Accepted", "APPROVED"],
    ["In process", "PENDING"],
    ["Paid", "PAID"],
    ["Rejected", "DISPUTED"]
  ]),
  ...more("ERPNext", [
    ["Draft", "PENDING"],
    ["Submitted", "PENDING"],
    ["Paid", "PAID"],
    ["Unpaid", "PENDING"],
    ["Overdue", "PENDING"],
    ["Cancelled", "DISPUTED"]
  ]),
  ...more("Odoo", [
    ["Draft", "PENDING"],
    ["Posted", "APPROVED"],
    ["Cancelled", "DISPUTED"],
    ["Paid", "PAID"],
    ["reversed", "DISPUTED"],
    ["blocked", "DISPUTED"]
  ]),
  ...more("Stripe", [
    ["deleted", "DISPUTED"],
    ["Open", "PENDING"],
    ["Uncollectible", "DISPUTED"]
  ]),
  ...more("Xero", [
    ["Draft", "PENDING"],
    ["Awaiting Approval", "PENDING"],
    ["Awaiting Payment", "APPROVED"],
    ["Paid", "PAID"],
    ["Authorised", "APPROVED"],
    ["Voided", "DISPUTED"]
  ]),
  ...more("NetSuite", [
    ["Open", "PENDING"],
    ["Pending Approval", "PENDING"],
    ["Rejected", "DISPUTED"],
    ["Paid In Full", "PAID"],
    ["Cancelled", "DISPUTED"],
    ["Payment In Transit", "APPROVED"],
    ["Bill Payment:Approved", "APPROVED"],
    ["Bill Payment:Voided", "DISPUTED"],
    ["Bill Payment:Declined", "DISPUTED"]
  ]),
  ...more("Triumph", [
    ["Purchased", "SOLD"],
    ["Funded", "SOLD"],
    ["Paid", "PAID"],
    ["Held", "DISPUTED"],
    ["Disputed", "DISPUTED"]
  ]),
  ...more("C2FO", [
    ["Eligible", "APPROVED"],
    ["Clearing", "APPROVED"],
    ["Ineligible", "APPROVED"]
  ]),
  ...more("Taulia", [
    ["Early payment requested", "APPROVED"],
    ["Paid", "PAID"],
    ["In Process", "PENDING"]
  ]),
  ...more("Tipalti", [
    ["PENDING_PAYMENT", "APPROVED"],
    ["SCHEDULED_FOR_PAYMENT", "APPROVED"],
    ["PARTIALLY_PAID", "APPROVED"],
    ["PENDING_APPROVAL", "PENDING"]
  ]),
  ...more("SAP Business Network (Ariba)", [
    ["Paid", "PAID"],
    ["Approved", "APPROVED"],
    ["Sent", "PENDING"],
    ["PartiallyPaid", "APPROVED"],
    ["PendingApproval", "PENDING"],
    ["Cancelled", "DISPUTED"]
  ]),
  ...more("Coupa", [
    ["approved", "APPROVED"],
    ["disputed", "DISPUTED"],
    ["draft", "PENDING"],
    ["abandoned", "DISPUTED"],
    ["withdrawn", "DISPUTED"],
    ["booking_hold", "DISPUTED"]
  ]),
  ...more("Basware", [
    ["Paid", "PAID"],
    ["Rejected", "DISPUTED"],
    ["Disputed", "DISPUTED"],
    ["Received", "PENDING"],
    ["Cancelled", "DISPUTED"]
  ]),
  ...more("Tungsten Network", [
    ["Approved", "APPROVED"],
    ["Paid", "PAID"],
    ["Rejected", "DISPUTED"]
  ]),
  ...more("QuickBooks Online", [
    ["Paid", "PAID"],
    ["Overdue", "PENDING"],
    ["Sent", "PENDING"],
    ["Deposited", "PAID"]
  ]),
  ...more("Zoho Books", [
    ["Draft", "PENDING"],
    ["Paid", "PAID"],
    ["Rejected", "DISPUTED"],
    ["Void", "DISPUTED"],
    ["submitted", "PENDING"]
  ]),
  ...more("Procurify", [
    ["Draft", "PENDING"],
    ["Pending Bills", "PENDING"]
  ]),
  ...more("Precoro", [
    ["Approved", "APPROVED"],
    ["Rejected", "DISPUTED"],
    ["Paid", "PAID"]
  ]),
  ...more("Airwallex", [
    ["Draft", "PENDING"],
    ["Rejected", "DISPUTED"],
    ["Paid", "PAID"]
  ]),
  ...more("Pluto", [
    ["Draft", "PENDING"],
    ["Rejected", "DISPUTED"],
    ["Paid", "PAID"],
    ["Partially Paid", "APPROVED"]
  ]),
  ...more("Vic.ai", [["Rejected", "DISPUTED"]]),
  ...more("US Treasury Invoice Processing Platform", [
    ["Draft", "PENDING"],
    ["Pending Approval", "PENDING"],
    ["Paid", "PAID"],
    ["Rejected", "DISPUTED"],
    ["Denied", "DISPUTED"],
    ["Voided", "DISPUTED"]
  ]),
  ...more("Maventa", [
    ["OVERDUE", "PENDING"],
    ["PAID", "PAID"]
  ]),
  ...more("CamInv (Cambodia e-invoicing)", [
    ["PENDING", "PENDING"],
    ["ACKNOWLEDGED", "ACKNOWLEDGED"],
    ["ACCEPTED", "APPROVED"],
    ["REJECTED", "DISPUTED"],
    ["PAID", "PAID"]
  ]),
  ...more("Bentley APM", [
    ["Posted", "APPROVED"],
    ["Partially Paid", "APPROVED"],
    ["Rejected", "DISPUTED"]
  ]),
  ...more("Planon", [
    ["Awaiting approval", "PENDING"],
    ["Approved", "APPROVED"],
    ["Rejected", "DISPUTED"]
  ]),
  ...more("Accrualify", [
    ["APPROVED", "APPROVED"],
    ["OPEN", "PENDING"],
    ["REJECTED", "DISPUTED"],
    ["PAID", "PAID"]
  ]),
  ...more("CoinPayments", [
    ["draft", "PENDING"],
    ["scheduled", "APPROVED"],
    ["unpaid", "PENDING"],
    ["pending", "PENDING"],
    ["paid", "PAID"],
    ["cancelled", "DISPUTED"],
    ["deleted", "DISPUTED"]
  ]),
  ...more("FarPay", [
    ["Not Paid", "PENDING"],
    ["Paid", "PAID"],
    ["Scheduled", "APPROVED"],
    ["Pending", "PENDING"],
    ["Rejected", "DISPUTED"]
  ]),
  ...more("Candid Health", [
    ["draft", "PENDING"],
    ["open", "PENDING"],
    ["paid", "PAID"],
    ["void", "DISPUTED"],
    ["uncollectible", "DISPUTED"],
    ["held", "DISPUTED"]
  ]),
  ...more("Qualpay", [
    ["Paid", "PAID"],
    ["Saved", "PENDING"],
    ["Canceled", "DISPUTED"]
  ]),
  ...more("Merge", [
    ["PAID", "PAID"],
    ["DRAFT", "PENDING"],
    ["SUBMITTED", "PENDING"],
    ["OPEN", "PENDING"],
    ["VOID", "DISPUTED"]
  ]),
  ...more("SAP SNC", [
    ["Pending", "PENDING"],
    ["Accepted", "APPROVED"],
    ["Rejected", "DISPUTED"]
  ]),
  ...more("JD Edwards", [
    ["Accepted", "APPROVED"],
    ["Rejected", "DISPUTED"],
    ["Submitted", "PENDING"],
    ["Conditionally accepted", "APPROVED"]
  ])
]

export const statusCases: ReadonlyArray<StatusCase> = [...researched, ...further]

// FNV-1a of the product's name: the same product always falls in the same half, so the test half
// measures products the rules were not tuned on.
const hash = (text: string) => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h
}
export const halfOf = (product: string): "development" | "test" => (hash(product) % 2 === 0 ? "development" : "test")
