/**
 * The researched vocabulary: invoice and payment statuses as debtor portals, ERPs, payables tools,
 * financing platforms and e-invoicing standards write them, each with its public source and the
 * status we map it to (the reason is given wherever the mapping is not obvious). The default table
 * of `normalizeStatus` is built from it, and `docs/status-table.md` is generated from it.
 */
import type { Status } from "./Status.ts"

export interface VocabularyEntry {
  readonly product: string
  /** A public URL or document title where the wording is documented. */
  readonly source: string
  /** The status text exactly as the product writes it. */
  readonly text: string
  readonly status: Status
  /** Why, where the mapping is not obvious from the text. */
  readonly reason?: string
}

type Row = readonly [text: string, status: Status, reason?: string]

const product = (name: string, source: string, rows: ReadonlyArray<Row>): ReadonlyArray<VocabularyEntry> =>
  rows.map(([text, status, reason]) =>
    reason === undefined ? { product: name, source, text, status } : { product: name, source, text, status, reason }
  )

const transport = "a delivery or routing step: the buyer has or is getting the invoice and has not decided"
const inFlight = "payment is under way or scheduled, money has not arrived"
const partialPay = "part of the amount is paid; partial payment is never PAID"
const exception = "an internal processing exception: the buyer is still processing, nothing is refused yet"
const offset = "settled by a credit note or offset: no money will arrive for this invoice"
const specWins = "the spec's table (section 3) maps this word exactly; the product uses it for another step"

export const statusVocabulary: ReadonlyArray<VocabularyEntry> = [
  ...product("Partner Receivables API", "Partner Receivables API Specification, section 3", [
    ["DRAFT", "PENDING"],
    ["SUBMITTED", "PENDING"],
    ["IN PROCESS", "PENDING"],
    ["PENDING APPROVAL", "PENDING"],
    ["OPEN", "PENDING"],
    ["UNPAID", "PENDING"],
    ["OVERDUE", "PENDING"],
    ["UNDER REVIEW", "PENDING"],
    ["IN REVIEW", "PENDING"],
    ["AWAITING APPROVAL", "PENDING"],
    ["APPROVED", "APPROVED"],
    ["APPROVED FOR PAYMENT", "APPROVED"],
    ["READY FOR PAYMENT", "APPROVED"],
    ["PAYMENT IN PROCESS", "APPROVED"],
    ["SCHEDULED FOR PAYMENT", "APPROVED"],
    ["PAYMENT SCHEDULED", "APPROVED"],
    ["PAID", "PAID"],
    ["PAID IN FULL", "PAID"],
    ["FULLY PAID", "PAID"],
    ["SETTLED", "PAID"],
    ["CLOSED", "PAID", "the spec's table maps CLOSED to PAID; only the exact word, never inside a longer text"],
    ["COMPLETED", "PAID", "the spec's table maps COMPLETED to PAID; only the exact word, never inside a longer text"],
    ["MARKED PAID", "PAID"],
    ["RECONCILED", "PAID", "the spec's table maps RECONCILED to PAID; only the exact word"],
    ["SOLD", "SOLD"],
    ["FACTORED", "SOLD"],
    ["ASSIGNED", "SOLD", "the spec's table: assigned to a financier"],
    ["REJECTED", "DISPUTED"],
    ["CANCELED", "DISPUTED"],
    ["CANCELLED", "DISPUTED"],
    ["VOIDED", "DISPUTED"],
    ["VOID", "DISPUTED"],
    ["ON HOLD", "DISPUTED"],
    ["DISPUTED", "DISPUTED"],
    ["IN DISPUTE", "DISPUTED"]
  ]),
  ...product(
    "Coupa",
    "https://success.coupa.com/Suppliers/For_Suppliers/Coupa_Supplier_Portal/Working/Viewing_and_Managing_Invoices",
    [
      ["Draft", "PENDING"],
      ["Approved", "APPROVED"],
      ["Disputed", "DISPUTED"]
    ]
  ),
  ...product(
    "Coupa",
    "https://compass.coupa.com/en-us/products/core-platform/integration-playbooks-and-resources/other-integration-playbooks/invoicing-platform-integration/integration-scenarios/10.-retrieve-invoice-status-updates-from-coupa",
    [
      ["new", "PENDING"],
      ["pending_approval", "PENDING"],
      ["pending_receipt", "PENDING", "waits for the goods receipt before approval"],
      ["on_hold", "DISPUTED"],
      ["AP Hold", "DISPUTED"],
      ["voided", "DISPUTED"]
    ]
  ),
  ...product("Coupa", "https://www.tronox.com/ufaq/what-does-the-status-of-my-invoice-mean/", [
    ["Pending Approval", "PENDING"],
    ["Rejected", "DISPUTED"]
  ]),
  ...product("SAP Business Network (Ariba)", "https://support.ariba.com/item/view/84157", [
    ["Failed", "DISPUTED", "routing failed: the invoice broke the customer's rules and was not delivered"],
    ["Obsoleted", "DISPUTED", "the invoice was canceled or replaced by a resubmission"],
    ["Queued", "PENDING", transport],
    ["Sent", "PENDING", transport],
    ["Acknowledged", "ACKNOWLEDGED"],
    ["Canceled", "DISPUTED"]
  ]),
  ...product(
    "SAP Business Network (Ariba)",
    "https://google-support.mirrorblogs.com/corporate-suppliers/answer/9989647 (Alphabet supplier guide to Ariba statuses)",
    [
      ["Approved", "APPROVED"],
      ["Paid", "PAID"],
      ["Rejected", "DISPUTED"]
    ]
  ),
  ...product("SAP Ariba Buying and Invoicing", "Ariba Online Help: Invoice reconciliation statuses", [
    ["Reconciling", "PENDING", exception],
    ["Approving", "PENDING"],
    ["Paying", "APPROVED", inFlight],
    ["Rejecting", "DISPUTED"],
    ["Failed Rejecting", "DISPUTED"]
  ]),
  ...product("SAP Ariba Buying and Invoicing", "Ariba Online Help: Payment request and payment transaction statuses", [
    ["Scheduling", "APPROVED", inFlight],
    ["Scheduled", "APPROVED", inFlight],
    ["Processing", "PENDING", "the bare word says nothing about payment: still being processed"],
    ["Canceling", "DISPUTED"],
    [
      "Cleared",
      "ACKNOWLEDGED",
      "ambiguous across products: Ariba and BILL use it for a payment that cleared, Taulia for an invoice offset by a credit memo; a connector that knows which maps it"
    ]
  ]),
  ...product("Tungsten Network", "https://www.tungsten-network.com/iss-faq/", [
    ["Received", "PENDING", transport],
    ["On Hold", "DISPUTED"],
    ["Exception", "PENDING", exception]
  ]),
  ...product("Tungsten Network", "https://tungsten-network.com//customer-campaigns/mobilitie", [
    ["Delivered", "PENDING", transport]
  ]),
  ...product(
    "Tungsten Network",
    "http://www.tungsten-network.com/it/support/tutorials/view-the-status-of-your-invoices-on-the-tungsten-network-portal/",
    [
      ["Saved", "PENDING"],
      ["Accepted", "APPROVED"]
    ]
  ),
  ...product("Basware", "https://basware.service-now.com/bw?id=bw_kb_article&sysparm_article=BWKB0013239", [
    ["DELIVERED", "PENDING", transport],
    ["PROCESSED", "APPROVED", "processing is finished; for payables it means posted and payable"],
    ["IN FLOW", "PENDING", "taken into the buyer's approval and payment process"],
    ["DELIVERY IN PROGRESS", "PENDING", transport],
    ["DELIVERY DELAYED", "PENDING", transport],
    ["REJECTED BY THE RECIPIENT", "DISPUTED"]
  ]),
  ...product("Basware", "https://basware.service-now.com/bw?id=bw_kb_article&sysparm_article=BWKB0010579", [
    ["Ready for Delivery", "PENDING", transport],
    ["Delivered to Recipient", "PENDING", transport],
    ["Rejected during Delivery", "DISPUTED"]
  ]),
  ...product("Basware", "https://customer.basware.com/en/features/invoice-status-check", [
    ["In approval", "PENDING"],
    ["Ready for payment", "APPROVED"],
    ["Processed", "APPROVED", "completed in the buyer's system without payment information: never PAID"]
  ]),
  ...product("Basware", "https://basware.service-now.com/bw?id=bw_kb_article&sysparm_article=BWKB0016521", [
    ["Matching", "PENDING", exception],
    ["Workflow", "PENDING"],
    ["Transfer", "PENDING", "being transferred to the buyer's ERP"],
    ["Archive", "ACKNOWLEDGED"],
    ["Historical", "ACKNOWLEDGED"]
  ]),
  ...product("Tradeshift", "https://default.support.tradeshift.com/knowledgebase/article/206370384", [
    ["Sent", "PENDING", transport],
    ["Received", "PENDING", transport],
    ["Accepted", "APPROVED", "the buyer agrees with the invoice and payment should follow"],
    ["Rejected", "DISPUTED"],
    ["Paid", "PAID"]
  ]),
  ...product("Tradeshift", "https://nhssbs.support.tradeshift.com/knowledgebase/article/16753237371154", [
    ["ACCEPTED", "APPROVED"],
    ["DISPUTED", "DISPUTED", "on hold after approval"],
    ["REJECTED", "DISPUTED"]
  ]),
  ...product("Tipalti", "https://getstarted.tipalti.com/hc/en-us/articles/30607323076375-Bill-statuses", [
    ["Deleted", "DISPUTED"],
    ["Disputed", "DISPUTED"],
    ["Review matching", "PENDING", exception],
    ["Paid", "PAID"],
    ["Partially paid", "APPROVED", partialPay],
    ["Pending AP action", "PENDING"],
    ["Pending approval", "PENDING"],
    ["Pending managed services", "PENDING"],
    ["Pending matching", "PENDING"],
    ["Pending payee approval", "PENDING"],
    ["Pending payee invoice", "PENDING"],
    ["Pending payment", "APPROVED", "approved and waiting for its payment"],
    ["Pending review", "PENDING"],
    ["Pending scan", "PENDING"],
    ["Scheduled for payment", "APPROVED", inFlight],
    ["Submitted for payment", "APPROVED", inFlight]
  ]),
  ...product(
    "BILL (Bill.com)",
    "https://support.bill.com/hc/en-us/articles/203692759-Understanding-bill-or-payment-status",
    [
      ["Unassigned", "PENDING", "no approver assigned yet"],
      ["Assigned", "SOLD", `${specWins}; BILL means routed to approvers, so a BILL connector must map it to PENDING`],
      ["Approving", "PENDING"],
      ["Approved", "APPROVED"],
      ["Denied", "DISPUTED"],
      ["Scheduled", "APPROVED", inFlight]
    ]
  ),
  ...product(
    "BILL (Bill.com)",
    "https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_0807052012.html",
    [
      ["For Submission", "PENDING"],
      ["Processing", "PENDING", "the bare word says nothing about payment: still being processed"],
      ["Payment Sent", "APPROVED", inFlight],
      ["Payment on Hold", "DISPUTED"],
      ["Funding Failed", "DISPUTED"],
      ["Void Pending", "DISPUTED"],
      ["Payment Returned", "DISPUTED", "the payment came back: money did not arrive"]
    ]
  ),
  ...product("BILL (Bill.com)", "https://developer.bill.com/docs/single-status-payment-values", [
    ["DISBURSEMENT_FAILED_ACTION_NEEDED", "DISPUTED"],
    ["DISBURSEMENT_FAILED_VENDOR_BANK_REJECTED", "DISPUTED"],
    ["FUNDING_FAILED_ACTION_NEEDED", "DISPUTED"],
    ["FUNDS_ESCHEATED", "DISPUTED", "unclaimed funds handed to the state: the vendor did not receive them"],
    ["FUNDING_FAILED_VOIDED", "DISPUTED"],
    ["DELIVERED", "PENDING", `${transport}; BILL uses it for a payment not yet settled (APPROVED in a BILL connector)`],
    ["DISBURSEMENT_ON_HOLD", "DISPUTED"],
    ["PROCESSED", "APPROVED", "the payer's account was debited to fund the payment: in flight"]
  ]),
  ...product(
    "Taulia",
    "https://support.taulia.com/articles/en_US/Agent_Knowledge_Base/Southern-Company-What-are-the-different-invoice-statuses",
    [
      ["Early Payment Available", "APPROVED", "early payment is offered, not taken: approved, not SOLD or PAID"],
      ["Submitting", "PENDING", transport],
      ["In Process", "PENDING"],
      ["Approved", "APPROVED"],
      ["Paid", "PAID"],
      ["Rejected", "DISPUTED"],
      ["Draft", "PENDING"],
      ["Voided", "DISPUTED"],
      ["Cleared", "ACKNOWLEDGED", `Taulia: offset by a credit memo (${offset}); the word is ambiguous across products`]
    ]
  ),
  ...product("C2FO", "https://www.c2fo.com/amer/us/en-us/lp/faq/customer-faq", [
    ["Eligible", "APPROVED", "an approved invoice eligible for early payment: financing offered, not done"],
    ["Clearing", "APPROVED", "the early-payment offer clears the market: payment will come early, not yet"],
    ["Not clearing", "APPROVED", "the offer does not clear; the invoice stays approved and is paid on its date"],
    ["Ineligible", "APPROVED", "C2FO lists approved invoices only; this one cannot be paid early"]
  ]),
  ...product(
    "Triumph",
    "https://help.mytriumph.com/support/solutions/articles/153000238431-what-do-the-different-invoice-statuses-mean-",
    [
      ["Received", "PENDING", transport],
      ["Processing", "PENDING"],
      ["Approved", "APPROVED"],
      ["Purchased", "SOLD", "the factor bought the invoice: financing happened"],
      ["Funded", "SOLD", "the factor advanced the funds: financing happened"],
      ["Paid", "PAID"],
      ["Held", "DISPUTED", "held awaiting information from the client"],
      ["Denied", "DISPUTED"],
      ["Unsubmitted", "PENDING"]
    ]
  ),
  ...product(
    "Oracle Fusion Payables",
    "https://oraclefusionschool.blogspot.com/2019/10/invoice-validation-statuses.html",
    [
      ["Incomplete", "PENDING", exception],
      ["Not Validated", "PENDING", "validation has not run yet"],
      ["Validated", "APPROVED", "validated invoices are available for payment"],
      ["Needs Revalidation", "PENDING", exception]
    ]
  ),
  ...product(
    "Oracle Fusion Payables",
    "https://oraclefusionschool.blogspot.com/2019/10/invoice-approval-statues_8.html",
    [
      ["Required", "PENDING", "approval is required and not yet requested"],
      ["Initiated", "PENDING", "the approval workflow has started"],
      ["Workflow Approved", "APPROVED"],
      ["Manually Approved", "APPROVED"],
      ["Resubmit for Approval", "PENDING"],
      ["Withdrawn", "DISPUTED"],
      ["Held from approval", "DISPUTED"]
    ]
  ),
  ...product(
    "Oracle E-Business Suite Payables",
    "https://horizon.more4apps.com/doco/PIWRelease/output/status_and_message_columns.htm",
    [["Never Validated", "PENDING", "validation has not run yet"]]
  ),
  ...product(
    "SAP S/4HANA",
    "https://learning.sap.com/courses/invoice-verification-in-sap-s-4hana/parking-of-documents",
    [
      ["Entered and held", "PENDING", "SAP's hold saves a draft; it is not a payment hold"],
      ["Parked and held", "PENDING", "SAP's hold saves a draft; it is not a payment hold"],
      ["Parked", "PENDING"],
      ["Parked and completed", "PENDING", "saved as complete for posting but not posted: nothing is paid"],
      ["Parked and released", "PENDING", "released by workflow but still parked, not posted"],
      ["Deleted", "DISPUTED"]
    ]
  ),
  ...product(
    "SAP ERP Logistics Invoice Verification",
    "https://help.sap.com/doc/ea71b6531de6b64ce10000000a174cb4/3.6/en-US/f46fb6531de6b64ce10000000a174cb4.html",
    [
      ["Held", "DISPUTED", "read as a hold; in SAP it saves a draft, which an SAP connector maps to PENDING"],
      ["Parked as Complete", "PENDING"],
      ["Planned for background verification", "PENDING"],
      ["Verified as incorrect", "PENDING", exception],
      ["Correct (posted, not completed)", "APPROVED", "posted: the liability is booked and payable"],
      ["Posted", "APPROVED", "posted: the liability is booked and payable"]
    ]
  ),
  ...product(
    "NetSuite",
    "https://docs.jitterbit.com/cloud-studio/cloud-studio-reference/connectors/netsuite/netsuite-how-tos/search-by-status-in-netsuite",
    [
      ["Bill:Open", "PENDING"],
      ["Bill:Paid In Full", "PAID"],
      ["Bill:Cancelled", "DISPUTED"],
      ["Bill:Pending Approval", "PENDING"],
      ["Bill:Rejected", "DISPUTED"],
      ["Bill:Payment In-Transit", "APPROVED", inFlight],
      ["Paid In Full", "PAID"],
      ["Payment In-Transit", "APPROVED", inFlight],
      ["In-Transit", "APPROVED", inFlight],
      ["Confirmed", "ACKNOWLEDGED", "the bare word does not say what was confirmed"],
      ["Declined", "DISPUTED"],
      ["Online Bill Pay Pending Accounting Approval", "PENDING"]
    ]
  ),
  ...product(
    "Microsoft Dynamics AX 2012",
    "https://learn.microsoft.com/en-us/previous-versions/dynamics/ax-2012/reference/gg852197(v=ax.60)",
    [
      ["Draft", "PENDING"],
      ["InReview", "PENDING"],
      ["Approved", "APPROVED"],
      ["Rejected", "DISPUTED"],
      ["Cancelled", "DISPUTED"]
    ]
  ),
  ...product(
    "Microsoft Dynamics AX 2012",
    "https://learn.microsoft.com/en-my/previous-versions/dynamics/ax-2012/reference/gg848556(v=ax.60)",
    [
      ["Posted", "APPROVED"],
      ["PartiallyPaid", "APPROVED", partialPay],
      ["Paid", "PAID"]
    ]
  ),
  ...product(
    "Microsoft Dynamics AX 2012",
    "https://learn.microsoft.com/en-us/previous-versions/dynamics/ax-2012/reference/gg880042(v=ax.60)",
    [
      ["ChangeRequested", "PENDING"],
      ["PendingApproval", "PENDING"],
      ["PendingCompletion", "PENDING"],
      ["PendingCancellation", "DISPUTED"],
      ["NotSubmitted", "PENDING"]
    ]
  ),
  ...product(
    "Microsoft Dynamics AX 2012",
    "https://learn.microsoft.com/en-my/previous-versions/dynamics/ax-2012/reference/dn652298(v=ax.60)",
    [
      ["PartiallyApproved", "DISPUTED", "part of the amount is refused"],
      ["Resubmitted", "PENDING"],
      ["PendingAfterReject", "PENDING", "resubmitted after a rejection and waiting again"]
    ]
  ),
  ...product(
    "Microsoft Dynamics GP",
    "https://learn.microsoft.com/en-us/previous-versions/dynamicsgp/developer/cc533979(v=msdn.10)",
    [
      ["Not Submitted", "PENDING"],
      ["No Approval Needed", "APPROVED", "the document passes without approval"],
      ["Pending Changes", "PENDING"],
      ["Workflow Ended", "PENDING", "the workflow ended without saying how"]
    ]
  ),
  ...product("Xero", "https://developer.xero.com/documentation/api/accounting/invoices", [
    ["DRAFT", "PENDING"],
    ["SUBMITTED", "PENDING"],
    ["AUTHORISED", "APPROVED", "approved and awaiting payment"],
    ["DELETED", "DISPUTED"],
    ["VOIDED", "DISPUTED"],
    ["PAID", "PAID"]
  ]),
  ...product(
    "QuickBooks Online",
    "https://quickbooks.intuit.com/learn-support/en-au/help-article/mobile-apps/track-status-invoices-quickbooks-online-mobile-app/L94Lx4kcz_AU_en_AU",
    [
      ["Open", "PENDING"],
      ["Not sent", "PENDING"],
      ["Viewed", "PENDING", transport],
      ["Partially paid", "APPROVED", partialPay],
      ["Deposited", "PAID", "the payment is in the bank"],
      ["Not deposited", "APPROVED", "paid by the customer but the deposit is not recorded: not PAID by its own words"],
      ["Undelivered", "DISPUTED", "the invoice did not reach the customer"],
      ["Delivery error", "DISPUTED", "the invoice did not reach the customer"]
    ]
  ),
  ...product("Odoo", "https://github.com/odoo/odoo/blob/master/addons/account/models/account_move.py", [
    ["Not Paid", "PENDING"],
    ["In Payment", "APPROVED", "payment registered but not yet matched with the bank: in flight"],
    ["Partially Paid", "APPROVED", partialPay],
    ["Reversed", "DISPUTED", offset],
    ["Blocked", "DISPUTED", "blocked from payment"],
    ["Invoicing App Legacy", "ACKNOWLEDGED"],
    ["not_paid", "PENDING"],
    ["in_payment", "APPROVED", inFlight],
    ["partial", "APPROVED", partialPay]
  ]),
  ...product(
    "ERPNext",
    "https://github.com/frappe/erpnext/blob/develop/erpnext/accounts/doctype/sales_invoice/sales_invoice.json",
    [
      ["Return", "DISPUTED", offset],
      ["Credit Note Issued", "DISPUTED", offset],
      ["Debit Note Issued", "DISPUTED", "the buyer raised a debit note against it"],
      ["Partly Paid", "APPROVED", partialPay],
      [
        "Unpaid and Discounted",
        "SOLD",
        "discounted through Invoice Discounting: financing happened, whatever was paid"
      ],
      [
        "Partly Paid and Discounted",
        "SOLD",
        "discounted through Invoice Discounting: financing happened, whatever was paid"
      ],
      [
        "Overdue and Discounted",
        "SOLD",
        "discounted through Invoice Discounting: financing happened, whatever was paid"
      ],
      ["Internal Transfer", "ACKNOWLEDGED"]
    ]
  ),
  ...product(
    "Peppol Invoice Response (UNCL4343 subset)",
    "https://hexdocs.pm/ubl_ex/UblEx.Generator.ApplicationResponse.html",
    [
      ["AB", "ACKNOWLEDGED", "message acknowledgement"],
      ["IP", "PENDING", "in process"],
      ["UQ", "DISPUTED", "under query: processing is suspended until the seller answers"],
      ["CA", "APPROVED", "conditionally accepted"],
      ["RE", "DISPUTED", "rejected"],
      ["AP", "APPROVED", "accepted"],
      ["PD", "PAID", "paid"],
      ["Message acknowledgement", "ACKNOWLEDGED"],
      ["Under query", "DISPUTED", "processing is suspended until the seller answers"],
      ["Conditionally accepted", "APPROVED", "accepted, with conditions stated in the reason"]
    ]
  ),
  ...product("French e-invoicing lifecycle (CDAR Flow 6)", "https://docs.gobl.org/addons/fr-ctc-flow6-v1", [
    ["Déposée", "PENDING", "200: submitted to the platform"],
    ["Émise par la plateforme", "PENDING", `201: ${transport}`],
    ["Reçue par PA", "PENDING", `202: ${transport}`],
    ["Mise à disposition", "PENDING", `203: ${transport}`],
    ["Prise en charge", "PENDING", "204: the buyer took it into processing"],
    ["Approuvée", "APPROVED", "205"],
    ["Approuvée partiellement", "DISPUTED", "206: part of the amount is refused and a credit note is expected"],
    ["En litige", "DISPUTED", "207"],
    ["Suspendue", "DISPUTED", "208: suspended until the supplier sends missing information"],
    ["Complétée", "PENDING", "209: the supplier completed the missing information; processing resumes. Not paid"],
    ["Refusée", "DISPUTED", "210"],
    ["Paiement transmis", "APPROVED", `211: ${inFlight}`],
    ["Encaissée", "PAID", "212: the supplier received the money"],
    ["Rejetée", "DISPUTED", "213"],
    ["Taken into account", "PENDING", "204"],
    ["Payment transmitted", "APPROVED", `211: ${inFlight}`],
    ["Cashed in", "PAID", "212"]
  ]),
  ...product(
    "French e-invoicing lifecycle (CDAR Flow 6)",
    "https://developer.vertexinc.com/einvoicing/docs/france-cii-cdar-d22b-response-code",
    [
      ["Issued by platform", "PENDING", `201: ${transport}`],
      ["Received by the platform", "PENDING", `202: ${transport}`],
      ["Made Available", "PENDING", `203: ${transport}`],
      ["In hand", "PENDING", "204: the buyer took it into processing"],
      ["Partially Approved", "DISPUTED", "206: part of the amount is refused and a credit note is expected"],
      ["Suspended", "DISPUTED", "208"],
      ["Refused", "DISPUTED", "210"],
      ["Payment Sent", "APPROVED", `211: ${inFlight}`],
      ["Payment Received", "PAID", "212"],
      ["Reviewed", "PENDING", "214: checked, not yet approved"],
      ["Routing error", "DISPUTED", "221: the invoice could not be delivered"],
      ["Direct Payment Request", "ACKNOWLEDGED", "224: a request for direct payment, no decision on the invoice"],
      ["Factored", "SOLD", "225"]
    ]
  ),
  ...product(
    "French e-invoicing lifecycle (CDAR Flow 6)",
    "https://developer.vertexinc.com/einvoicing/docs/france-ciiar-response-code",
    [
      ["Cashed", "PAID", "212"],
      ["In dispute", "DISPUTED", "207"]
    ]
  ),
  ...product(
    "French e-invoicing lifecycle (CDAR Flow 6)",
    "https://guide-plateforme-agreee.fr/lexique/statuts-dune-facture-electronique",
    [
      ["Avoir émis", "DISPUTED", offset],
      ["Traitée", "PENDING", "processed by the buyer, no decision given"]
    ]
  ),
  ...product("Stripe", "https://docs.stripe.com/api/invoices/object", [
    ["draft", "PENDING"],
    ["open", "PENDING"],
    ["paid", "PAID"],
    ["uncollectible", "DISPUTED", "written off as not collectible"],
    ["void", "DISPUTED"]
  ]),
  ...product("Square", "https://developer.squareup.com/reference/square/enums/InvoiceStatus", [
    ["UNPAID", "PENDING"],
    ["SCHEDULED", "APPROVED", inFlight],
    ["PARTIALLY_PAID", "APPROVED", partialPay],
    ["PARTIALLY_REFUNDED", "DISPUTED", "money was returned: the full amount is no longer paid"],
    ["REFUNDED", "DISPUTED", "the payment was returned"],
    ["FAILED", "DISPUTED"],
    ["PAYMENT_PENDING", "APPROVED", inFlight]
  ]),
  ...product("Zoho Books", "https://www.zoho.com/us/books/kb/invoices/invoice-life-cycle.md", [
    ["Sent", "PENDING", transport],
    ["Unpaid", "PENDING"],
    ["Overdue", "PENDING"],
    ["Partially Paid", "APPROVED", partialPay]
  ]),
  ...product("Zoho Books", "https://www.zoho.com/us/books/kb/invoices/quotes-invoices-status.md", [
    ["Pending Approval", "PENDING"],
    ["Accepted", "APPROVED"]
  ]),
  ...product("Procurify", "https://success.procurify.com/en/articles/9001747-payment-processing-categories", [
    ["Paid Bills", "PAID"],
    ["Payment Approved", "APPROVED", inFlight],
    ["Payment Paid", "PAID"],
    ["Denied", "DISPUTED"],
    ["Archived", "ACKNOWLEDGED"]
  ]),
  ...product("Precoro", "https://help.precoro.com/en/support/solutions/articles/35000118814-how-to-track-an-invoice", [
    ["Open", "PENDING"],
    ["Pending", "PENDING"],
    ["Partly paid", "APPROVED", partialPay],
    ["Canceled", "DISPUTED"],
    ["Pending Confirmation", "PENDING"]
  ]),
  ...product("Jaggaer", "Indiana University: Track Status of Payment (Jaggaer supplier portal guide, 2021)", [
    ["In Process", "PENDING"],
    ["Payable", "APPROVED", "OK to pay; payment follows on the due date"],
    ["Paid", "PAID"]
  ]),
  ...product(
    "ServiceNow Accounts Payable Operations",
    "https://www.servicenow.com/docs/r/zurich/source-to-pay-operations/accounts-payable-operations/invoice-status.html",
    [
      ["No invoice", "PENDING", exception],
      ["Suspected duplicate", "PENDING", exception],
      ["Accepted", "APPROVED"],
      ["PO matching error", "PENDING", exception],
      ["PO matching completed", "PENDING", "a matching step finished; approval still follows. Not paid"],
      ["Exceptions found", "PENDING", exception],
      ["No exceptions found", "PENDING"],
      ["Pending payment", "APPROVED", "approved and sent to the ERP for payment"],
      ["Confirmed duplicate", "DISPUTED"]
    ]
  ),
  ...product(
    "Kofax MarkView",
    "http://docshield.azurewebsites.net/MarkView/en_US/10.5.0-yw2qf8m7r6/help/ssi/MV_ssihelp/c_aboutstatus.html",
    [
      ["ENTRY", "PENDING"],
      ["SUPPLIER MAINTENANCE", "PENDING"],
      ["SUPP MAINT REJECTED", "DISPUTED"],
      ["SUPP MAINT COMPLETE", "PENDING", "the invoice must be resubmitted"],
      ["IMPORT", "PENDING"],
      ["IMPORT ERROR", "PENDING", exception],
      ["COMPLETE", "ACKNOWLEDGED", "complete in the capture workflow, which says nothing about approval or payment"]
    ]
  ),
  ...product("Airwallex", "https://help.airwallex.com/hc/en-gb/articles/7941051584143", [
    ["In approval", "PENDING"],
    ["Pending your approval", "PENDING"],
    ["Awaiting payment", "APPROVED", "approved and waiting to be paid"],
    ["Payment in progress", "APPROVED", inFlight],
    ["Synced", "ACKNOWLEDGED"]
  ]),
  ...product("Aspire", "https://support.aspireapp.com/faq/what-do-the-different-bill-statuses-mean", [
    ["Pending Review", "PENDING"],
    ["Pending Payment", "APPROVED", "approved, payment not yet initiated"],
    ["Payment Scheduled", "APPROVED", inFlight],
    ["Payment initiated", "APPROVED", inFlight],
    ["Failed", "DISPUTED", "the payment was initiated and failed"]
  ]),
  ...product("Pluto", "https://help.plutocard.io/en/articles/8811408-bill-statuses-and-their-definitions", [
    ["Awaiting Approval", "PENDING"],
    ["Awaiting Payment", "APPROVED", "final approval given, payment required"],
    ["Payment in Progress", "APPROVED", inFlight]
  ]),
  ...product("Vic.ai", "https://intercom.help/vicai/en/articles/8736549-payments-bill-pay", [
    ["Unpaid", "PENDING"],
    ["Partially Paid", "APPROVED", partialPay],
    ["Voided", "DISPUTED"]
  ]),
  ...product(
    "US Treasury Invoice Processing Platform",
    "https://ipp.for.fiscal.treasury.gov/onlinehelp/8.0collectorhelp/screen_ref/coll_ref_get_inv_status.htm",
    [
      ["Pending Submission", "PENDING"],
      ["Approved to Pay", "APPROVED"],
      ["Scheduled to Pay", "APPROVED", inFlight],
      ["Paid Returned", "DISPUTED", "the payment was returned by the vendor's bank"],
      ["SAM Expired", "DISPUTED", "the vendor's registration expired; payment is blocked"],
      ["In Exception", "PENDING", exception]
    ]
  ),
  ...product("Maventa", "http://developer.maventa.com/wiki/maventa-api/InvoiceState", [
    ["PENDING / NOT YET SENT", "PENDING"],
    ["SENT FROM MAVENTA", "PENDING", transport],
    ["REJECTED BY CUSTOMER", "DISPUTED"],
    ["APPROVED BY CUSTOMER", "APPROVED"],
    ["PAYMENT RECEIVED", "PAID"],
    ["WAITING SIGN", "PENDING"],
    ["SEND ERROR", "DISPUTED", "the invoice could not be delivered"]
  ]),
  ...product("Bentley APM", "https://help-apm.bentley.com/7/en/eam/1040149940_Invoice_line_identif.html", [
    ["New", "PENDING"],
    ["Out of balance", "PENDING", exception],
    [
      "Balanced",
      "ACKNOWLEDGED",
      "Bentley: lines add up; FHIR: completely paid. The word says neither approval nor money"
    ],
    ["Sent for approval", "PENDING"],
    ["Ready to post", "PENDING"],
    ["Paid in Full", "PAID"]
  ]),
  ...product("HL7 FHIR Invoice", "https://hl7.org/fhir/R4B/valueset-invoice-status.html", [
    ["issued", "PENDING", transport],
    ["entered-in-error", "DISPUTED", "the invoice was entered in error and withdrawn"]
  ]),
  ...product("Mollie", "https://docs.mollie.com/docs/invoice-lifecycle", [
    ["issued", "PENDING"],
    ["payment-reversed", "DISPUTED", "the payment was reversed (chargeback)"],
    ["pending-payment", "APPROVED", inFlight],
    ["issuing", "PENDING", transport]
  ]),
  ...product("OpenMeter", "https://openmeter.io/docs/billing/invoicing/invoice-lifecycle", [
    ["Gathering", "ACKNOWLEDGED", "usage is still being collected; no invoice to decide on"],
    ["Payment Processing", "APPROVED", inFlight]
  ]),
  ...product("UniBee", "https://docs.unibee.dev/documentation/invoices/status-and-workflow", [
    ["Awaiting refund", "DISPUTED", "a refund is due: the money goes back"]
  ]),
  ...product("Invoice Ninja", "https://invoiceninja.github.io/docs/api-reference/invoices", [
    ["STATUS_PARTIAL", "APPROVED", partialPay],
    ["STATUS_REVERSED", "DISPUTED", offset]
  ]),
  ...product(
    "Red Hat 3scale",
    "https://access.redhat.com/documentation/en-us/red_hat_3scale_api_management/2.11/html/admin_portal_guide/invoice_states",
    [["Finalized", "PENDING", "complete and about to be issued"]]
  ),
  ...product("Request Finance", "https://docs.request.finance/invoices", [
    ["declaredPaid", "PAID", "the payer declared it paid, like MARKED PAID in the spec"]
  ]),
  ...product("FarPay", "https://github.com/FarPay/ApiDoc (Invoices.md)", [
    ["Chargeback", "DISPUTED", "the payment was pulled back"],
    ["Payment failed", "DISPUTED"]
  ]),
  ...product("Dolibarr", "https://wiki.dolibarr.org/index.php/Matrice_statuts_FE_dolibarr", [
    ["Brouillon", "PENDING"],
    ["Payée", "PAID", "French for paid; the same letters as the English payee, so only the exact word"],
    ["Abandonnée", "DISPUTED", "classed without follow-up (replaced, abandoned, bad customer)"]
  ]),
  ...product("Dolibarr", "https://wiki.dolibarr.org/index.php/Table_llx_facture", [
    ["unpayed", "PENDING"],
    ["payed", "PAID"],
    ["abandoned", "DISPUTED"]
  ]),
  ...product("CoinPayments", "https://a-docs.coinpayments.net/api/invoices/statuses", [
    ["timedOut", "DISPUTED", "the invoice expired unpaid"]
  ]),
  ...product(
    "JTL",
    "https://developer.jtl-software.com/cloud/api-reference/erp/v2.2/graphql/types/InvoicePaymentStatus",
    [
      ["COMPLETELY_PAID", "PAID"],
      ["NOT_DETERMINABLE", "ACKNOWLEDGED"]
    ]
  ),
  ...product(
    "OFX bill payment",
    "https://reference.aspose.com/finance/net/aspose.finance.ofx.billerdelivery/billpaymentstatuscodeenum",
    [
      ["PAIDOUTOFBAND", "PAID", "paid directly to the biller outside OFX"],
      ["AUTOPAY", "APPROVED", "the biller will collect by pre-authorization: in flight"],
      ["UNPAYABLE", "DISPUTED", "no allowed payment instrument: it cannot be paid this way"],
      ["NONE", "ACKNOWLEDGED"]
    ]
  ),
  ...product("Brinta", "https://docs.brinta.com/reference/invoice-status-codes", [
    ["cancel process", "DISPUTED"],
    ["created", "PENDING"]
  ]),
  ...product(
    "Accrualify",
    "https://accrualify.zendesk.com/hc/en-us/articles/115003545608-What-Does-Each-Invoice-Status-Mean",
    [
      ["NEW", "PENDING"],
      ["PENDING", "PENDING"]
    ]
  ),
  ...product("Planon", "https://webhelp.planoncloud.com/en/Invoices/Invoice_statuses.html", [
    ["Edit", "PENDING"],
    ["Final", "PENDING", "numbered and about to be sent"],
    ["Invoiced", "PENDING", transport]
  ]),
  ...product("Qualpay", "https://help.qualpay.com/help/invoice-statuses", [["Outstanding", "PENDING"]]),
  ...product("CamInv (Cambodia e-invoicing)", "https://doc-caminv.netlify.app/data-type/document-status", [
    ["UNDER_QUERY", "DISPUTED", "issues or queries are being reviewed; processing waits on the seller"],
    ["CONDITIONALLY_ACCEPTED", "APPROVED"],
    ["IN_PROCESS", "PENDING"]
  ]),
  ...product(
    "Merge",
    "https://raw.githubusercontent.com/api-evangelist/merge/refs/heads/main/json-schema/merge-invoicestatusenum-schema.json",
    [["PARTIALLY_PAID", "APPROVED", partialPay]]
  )
]
