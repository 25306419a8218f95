/**
 * The adversarial set: status texts written to break the money statuses (negations, reversals,
 * boolean answers, amounts, questions, imperatives, ended disputes, French and mixed wordings),
 * each labelled by `docs/status-policy.md`, never by what the rules answer. No product writes
 * them this way on purpose, so they are kept apart from the real wordings (`cases.ts`):
 * `bench:status` scores them separately and counts false APPROVED, PAID and SOLD first.
 */
import type { Status } from "../../core/receivables/domain/Status.ts"

export interface AdversarialCase {
  readonly group: string
  readonly text: string
  readonly expected: Status
}

const PENDING = "PENDING"
const APPROVED = "APPROVED"
const PAID = "PAID"
const SOLD = "SOLD"
const DISPUTED = "DISPUTED"
const ACKNOWLEDGED = "ACKNOWLEDGED"

type Row = readonly [text: string, expected: Status]
const group = (name: string, rows: ReadonlyArray<Row>): ReadonlyArray<AdversarialCase> =>
  rows.map(([text, expected]) => ({ group: name, text, expected }))

// How connectors receive the same texts: "PAYMENT_NOT_RECEIVED", "paymentNotReceived".
const words = (text: string) => text.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0)
const apiForms = (rows: ReadonlyArray<Row>): ReadonlyArray<Row> =>
  rows.flatMap(([text, expected]) => [
    [words(text).join("_").toUpperCase(), expected] as const,
    [
      words(text)
        .map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()))
        .join(""),
      expected
    ] as const
  ])

// A negated payment is PENDING; "not fully paid" is ambiguous between partly paid and unpaid, and
// the lesser reading wins.
const notPaid: ReadonlyArray<Row> = [
  ["Not paid", PENDING],
  ["Not yet paid", PENDING],
  ["Never paid", PENDING],
  ["Hasn't been paid", PENDING],
  ["Has not been paid", PENDING],
  ["Isn't paid", PENDING],
  ["Wasn't paid", PENDING],
  ["Invoice not paid", PENDING],
  ["Invoice not yet paid", PENDING],
  ["Not fully paid", PENDING],
  ["Not paid in full", PENDING],
  ["Payment not received", PENDING],
  ["Payment not yet received", PENDING],
  ["No payment received", PENDING],
  ["No payments received", PENDING],
  ["Payment not completed", PENDING],
  ["Payment not confirmed", PENDING],
  ["Payment not settled", PENDING],
  ["Payment not executed", PENDING],
  ["Not settled", PENDING],
  ["Not yet settled", PENDING],
  ["Not cashed", PENDING],
  ["Amount not paid", PENDING],
  ["Unpaid balance", PENDING],
  ["Payment: not received", PENDING],
  ["Status: not paid", PENDING],
  ["Paid - NOT", PENDING]
]

// A withheld approval is DISPUTED; one that has not happened yet (or a check not run) is PENDING.
const notApproved: ReadonlyArray<Row> = [
  ["Payment not approved", DISPUTED],
  ["not approved for payment", DISPUTED],
  ["Payment not yet approved", PENDING],
  ["Not approved", DISPUTED],
  ["Not yet approved", PENDING],
  ["Never approved", PENDING],
  ["Invoice not approved", DISPUTED],
  ["Approval not granted", DISPUTED],
  ["Not accepted", DISPUTED],
  ["Not authorized", DISPUTED],
  ["Payment not authorized", DISPUTED],
  ["Not validated", PENDING],
  ["Not yet validated", PENDING],
  ["Payment not scheduled", PENDING],
  ["Not scheduled for payment", PENDING],
  ["Not posted", PENDING],
  ["Not processed", PENDING],
  ["Unapproved", DISPUTED],
  ["Disapproved", DISPUTED],
  ["Not eligible for early payment", PENDING],
  ["Not ready for payment", PENDING]
]

// A negated financing word says nothing: ACKNOWLEDGED.
const notSold: ReadonlyArray<Row> = [
  ["Not sold", ACKNOWLEDGED],
  ["Not factored", ACKNOWLEDGED],
  ["Not financed", ACKNOWLEDGED],
  ["Not funded", ACKNOWLEDGED],
  ["Never factored", ACKNOWLEDGED],
  ["Unfunded", ACKNOWLEDGED],
  ["Not purchased", ACKNOWLEDGED],
  ["Not discounted", ACKNOWLEDGED],
  ["Invoice not sold", ACKNOWLEDGED],
  ["Financing not available", ACKNOWLEDGED],
  ["Early payment not available", ACKNOWLEDGED],
  ["Sold or unsold", ACKNOWLEDGED]
]

// A reversal of a payment, an approval or a financing is a refusal: DISPUTED.
const reversals: ReadonlyArray<Row> = [
  ["Approval revoked", DISPUTED],
  ["Revoked approval", DISPUTED],
  ["Approval withdrawn", DISPUTED],
  ["Approval rescinded", DISPUTED],
  ["Approved then revoked", DISPUTED],
  ["Payment reversed", DISPUTED],
  ["Payment returned", DISPUTED],
  ["Payment bounced", DISPUTED],
  ["Payment failed", DISPUTED],
  ["Payment cancelled", DISPUTED],
  ["Payment declined", DISPUTED],
  ["Payment recalled", DISPUTED],
  ["Payment reversal", DISPUTED],
  ["Paid - payment reversed", DISPUTED],
  ["Paid, then reversed", DISPUTED],
  ["Paid (returned)", DISPUTED],
  ["Paid - chargeback", DISPUTED],
  ["Refunded after payment", DISPUTED],
  ["Settlement reversed", DISPUTED],
  ["Deposit returned", DISPUTED],
  ["Wire returned", DISPUTED],
  ["ACH returned", DISPUTED],
  ["Cheque bounced", DISPUTED],
  ["Factoring cancelled", DISPUTED],
  ["Financing withdrawn", DISPUTED],
  ["Funding reversed", DISPUTED],
  ["Sold - sale cancelled", DISPUTED],
  ["Assignment revoked", DISPUTED],
  ["Factoring agreement terminated", DISPUTED],
  ["Approved, payment failed", DISPUTED]
]

// Flags and questions: a "no" negates the word asked about, a "yes" asserts it, an unanswered
// question asserts nothing.
const answers: ReadonlyArray<Row> = [
  ["Is Paid = N", PENDING],
  ["Is Paid = Y", PAID],
  ["Is Paid = N, Paid? N", PENDING],
  ["Paid? N", PENDING],
  ["Paid? Y", PAID],
  ["Paid? No", PENDING],
  ["Paid? Yes", PAID],
  ["Paid: no", PENDING],
  ["Paid: false", PENDING],
  ["is_paid=false", PENDING],
  ["is_paid=0", PENDING],
  ["is_paid=1", PAID],
  ["isPaid: false", PENDING],
  ["paid=N", PENDING],
  ["PAID = NO", PENDING],
  ["Paid - No", PENDING],
  ["Paid (N)", PENDING],
  ["Paid N", PENDING],
  ["Settled? N", PENDING],
  ["Settled = false", PENDING],
  ["Payment received? No", PENDING],
  ["Payment received: N", PENDING],
  ["Paid? N, Approved? Y", APPROVED],
  ["Approved? Y, Paid? N", APPROVED],
  ["Approved: yes; Paid: no", APPROVED],
  ["Paid: no, approved: yes", APPROVED],
  ["Approved = N", DISPUTED],
  ["Approved? No", DISPUTED],
  ["approved=false", DISPUTED],
  ["is_approved: 0", DISPUTED],
  ["Approved? Yes", APPROVED],
  ["Sold = N", ACKNOWLEDGED],
  ["Sold? No", ACKNOWLEDGED],
  ["Factored? No", ACKNOWLEDGED],
  ["Sold: false", ACKNOWLEDGED],
  ["is_factored=false", ACKNOWLEDGED],
  ["Factored? Yes", SOLD],
  ["Paid?", PENDING],
  ["Is it paid?", PENDING],
  ["Payment received?", PENDING],
  ["Settled?", PENDING],
  ["Approved?", PENDING],
  ["Approved and paid?", APPROVED],
  ["Sold?", ACKNOWLEDGED],
  ["Factored?", ACKNOWLEDGED]
]

// Amounts: zero paid is not paid, a part is APPROVED, a whole is PAID; dates and times are no amount.
const amounts: ReadonlyArray<Row> = [
  ["0% paid", PENDING],
  ["0 % paid", PENDING],
  ["Paid 0%", PENDING],
  ["Paid: 0%", PENDING],
  ["$0.00 paid", PENDING],
  ["Paid $0.00", PENDING],
  ["Amount paid: 0.00", PENDING],
  ["Amount paid = 0", PENDING],
  ["Paid 0", PENDING],
  ["0 paid", PENDING],
  ["0 payments received", PENDING],
  ["Paid 0.00 EUR", PENDING],
  ["Paid 0 of 3 installments", PENDING],
  ["50% paid", APPROVED],
  ["Paid 50%", APPROVED],
  ["25 % paid", APPROVED],
  ["Paid 99.5%", APPROVED],
  ["Paid 1 of 3 installments", APPROVED],
  ["Paid 600 of 1200", APPROVED],
  ["Settled 400.00 of 1000.00", APPROVED],
  ["100% paid", PAID],
  ["Paid 100%", PAID],
  ["Paid 1200 of 1200", PAID],
  ["Paid 3 of 3 installments", PAID],
  ["Paid 12:00", PAID],
  ["Paid 2024-05-01", PAID],
  ["Paid on 05/01/2024", PAID]
]

// An imperative is an action offered, not done: PENDING.
const imperatives: ReadonlyArray<Row> = [
  ["Mark as paid", PENDING],
  ["Mark paid", PENDING],
  ["Mark as Paid", PENDING],
  ["Set to paid", PENDING],
  ["Set as paid", PENDING],
  ["Please pay", PENDING],
  ["Pay now", PENDING],
  ["Pay invoice", PENDING],
  ["Pay", PENDING],
  ["Click to pay", PENDING],
  ["Approve", PENDING],
  ["Approve invoice", PENDING],
  ["Approve payment", PENDING],
  ["Approve or reject", PENDING],
  ["Accept invoice", PENDING],
  ["Submit for payment", PENDING],
  ["Submit for approval", PENDING],
  ["Request payment", PENDING],
  ["Request approval", PENDING],
  ["Sell invoice", PENDING],
  ["Factor this invoice", PENDING],
  ["Confirm payment", PENDING],
  ["Record payment", PENDING],
  ["Validate invoice", PENDING],
  ["Approved - mark as paid", APPROVED]
]

// An ended dispute, rejection or hold says nothing more by itself: PENDING, unless the rest of the
// text decides. A dispute that is not (or not surely) ended stays DISPUTED.
const ended: ReadonlyArray<Row> = [
  ["Dispute resolved", PENDING],
  ["Dispute resolved, Rejection withdrawn", PENDING],
  ["Rejection withdrawn", PENDING],
  ["Dispute withdrawn", PENDING],
  ["Dispute closed", PENDING],
  ["Dispute settled", PENDING],
  ["Dispute dropped", PENDING],
  ["Query resolved", PENDING],
  ["Objection withdrawn", PENDING],
  ["Rejection reversed", PENDING],
  ["Hold released", PENDING],
  ["Hold lifted", PENDING],
  ["Hold removed", PENDING],
  ["Released from hold", PENDING],
  ["Block lifted", PENDING],
  ["Suspension lifted", PENDING],
  ["Disputed - withdrawn", PENDING],
  ["Dispute resolved - approved", APPROVED],
  ["Dispute resolved, paid", PAID],
  ["Hold released, payment scheduled", APPROVED],
  ["Payment hold released", APPROVED],
  ["Dispute not resolved", DISPUTED],
  ["Dispute resolved?", DISPUTED],
  ["Dispute reopened", DISPUTED],
  ["Hold extended", DISPUTED],
  ["Hold not lifted", DISPUTED],
  ["Dispute resolved, payment reversed", DISPUTED],
  ["Dispute settled - paid in full", PAID]
]

// French, and French mixed with English, as far as the vocabulary reads French. The French "payée"
// is spelt like the English "payee", so only its negated form is known.
const french: ReadonlyArray<Row> = [
  ["Non payée", PENDING],
  ["Impayée", PENDING],
  ["Réglée", PAID],
  ["Non réglée", PENDING],
  ["Pas réglée", PENDING],
  ["Pas encore réglée", PENDING],
  ["Réglée partiellement", APPROVED],
  ["Réglée ? Non", PENDING],
  ["Réglée : oui", PAID],
  ["Payé : non", PENDING],
  ["Payé : oui", PAID],
  ["Payé", PAID],
  ["Non payé", PENDING],
  ["0 % payé", PENDING],
  ["50 % payé", APPROVED],
  ["Paiement reçu", PAID],
  ["Paiement non reçu", PENDING],
  ["Paiement pas encore reçu", PENDING],
  ["Paiement en attente", APPROVED],
  ["Paiement refusé", DISPUTED],
  ["Paiement annulé", DISPUTED],
  ["Paiement rejeté", DISPUTED],
  ["Paiement retourné", DISPUTED],
  ["Paiement échoué", DISPUTED],
  ["Règlement rejeté", DISPUTED],
  ["Règlement en attente", APPROVED],
  ["Encaissée", PAID],
  ["Non encaissée", PENDING],
  ["Pas encaissée", PENDING],
  ["Jamais encaissée", PENDING],
  ["Approuvée", APPROVED],
  ["Non approuvée", DISPUTED],
  ["Pas approuvée", DISPUTED],
  ["Pas encore approuvée", PENDING],
  ["Approuvée : non", DISPUTED],
  ["Approuvée ?", PENDING],
  ["Approbation révoquée", DISPUTED],
  ["Affacturée", SOLD],
  ["Non affacturée", ACKNOWLEDGED],
  ["Pas affacturée", ACKNOWLEDGED],
  ["Affacturée : non", ACKNOWLEDGED],
  ["Litige résolu", PENDING],
  ["Litige clos", PENDING],
  ["Litige non résolu", DISPUTED],
  ["Blocage levé", PENDING],
  ["Suspension levée", PENDING],
  ["Contestation retirée", PENDING],
  ["Marquer comme payée", PENDING],
  ["Marquer comme réglée", PENDING],
  ["Approuver", PENDING],
  ["Valider", PENDING],
  ["Paid / Payée", PAID],
  ["Paiement not received", PENDING],
  ["Invoice approuvée, not paid", APPROVED],
  ["Non paid", PENDING],
  ["Paid? Non", PENDING],
  ["Payé? No", PENDING],
  ["Approved, non réglée", APPROVED],
  ["Payment annulé", DISPUTED],
  ["Dispute résolu", PENDING]
]

// Texts between a money status and a lesser one: the lesser wins; a clear approval without
// payment stays APPROVED.
const ambiguous: ReadonlyArray<Row> = [
  ["Paid, pending bank", APPROVED],
  ["Paid pending", APPROVED],
  ["Paid or unpaid", PENDING],
  ["Paid / not paid", PENDING],
  ["Approved, not paid", APPROVED],
  ["Validated, unpaid", APPROVED],
  ["Scheduled, not paid yet", APPROVED],
  ["Approved - payment not received", APPROVED],
  ["Approved or rejected", DISPUTED],
  ["Approved, not approved", DISPUTED],
  ["Not validated, approved", PENDING],
  ["Paid, not received", PENDING],
  ["Sold, not factored", ACKNOWLEDGED],
  ["Factored, not funded", ACKNOWLEDGED],
  ["Paid, not factored", PAID],
  ["Approved, not factored", APPROVED],
  ["Unpaid, payment scheduled", APPROVED],
  ["Partially paid, not factored", ACKNOWLEDGED],
  ["Not partially paid", PENDING],
  ["Partially unpaid", PENDING]
]

// Written after the rules above were settled and scored once before any change, as a check on
// texts the rules were not shaped by; the first score is in the dated result file.
const unseen: ReadonlyArray<Row> = [
  ["Payment has not been received yet", PENDING],
  ["Funds not yet received", PENDING],
  ["Remittance not sent", PENDING],
  ["Not yet remitted", PENDING],
  ["Invoice has not been approved", DISPUTED],
  ["Invoice wasn't approved", DISPUTED],
  ["Approval pending - not paid", PENDING],
  ["Not marked as paid", PENDING],
  ["Cannot be paid", PENDING],
  ["Payment cannot be processed", PENDING],
  ["No longer approved", DISPUTED],
  ["Approval has been revoked", DISPUTED],
  ["Approval was withdrawn by the buyer", DISPUTED],
  ["Payment was reversed by the bank", DISPUTED],
  ["Payment bounced - insufficient funds", DISPUTED],
  ["Funding cancelled", DISPUTED],
  ["Factoring revoked", DISPUTED],
  ["Purchase of invoice reversed", DISPUTED],
  ["Paid = false", PENDING],
  ["PAID: N", PENDING],
  ["Paid flag: no", PENDING],
  ["is_settled: false", PENDING],
  ["Payment complete? No", PENDING],
  ["Payment complete? Yes", PAID],
  ["Settled? Yes", PAID],
  ["Financed? N", ACKNOWLEDGED],
  ["Funded = false", ACKNOWLEDGED],
  ["Approved? Not yet", PENDING],
  ["Has it been paid?", PENDING],
  ["Payment sent?", PENDING],
  ["Paid 0.0%", PENDING],
  ["Paid EUR 0,00", PENDING],
  ["Amount received: 0", PENDING],
  ["75% settled", APPROVED],
  ["Received 200 of 500", PENDING],
  ["Paid 100 %", PAID],
  ["Mark invoice as paid", PENDING],
  ["Please approve", PENDING],
  ["Please mark as settled", PENDING],
  ["Confirm receipt of payment", PENDING],
  ["Set status to paid", PENDING],
  ["Dispute has been resolved", PENDING],
  ["Dispute was withdrawn", PENDING],
  ["Rejection cancelled", PENDING],
  ["Payment hold lifted", APPROVED],
  ["Hold released - paid", PAID],
  ["Dispute still open", DISPUTED],
  ["Dispute not yet resolved", DISPUTED],
  ["Paiement non effectué", PENDING],
  ["Facture non réglée", PENDING],
  ["Facture non approuvée", DISPUTED],
  ["Affacturage annulé", DISPUTED],
  ["Litige levé", PENDING],
  ["Réglée à 0 %", PENDING],
  ["Réglée à 100 %", PAID],
  ["Paid (not yet cleared)", APPROVED],
  ["Paid, awaiting bank confirmation", APPROVED],
  ["Approved but not paid", APPROVED],
  ["Approved, payment on hold", DISPUTED],
  ["Sold? Not yet", ACKNOWLEDGED]
]

// Issue 39's two held-out texts (the first two, which read APPROVED before), then texts of the
// same grammar written with the rules that answer them: a negated purpose of money, a draft, an
// approval still to happen, and texts those rules must leave alone.
const notForMoney: ReadonlyArray<Row> = [
  ["Approved - not for payment", PENDING],
  ["Draft (needs to be validated)", PENDING],
  ["Approved, not payable", PENDING],
  ["Approved - not to be paid", PENDING],
  ["Validated, cannot be paid", PENDING],
  ["Approved, no payment required", PENDING],
  ["Accepted - payment not required", PENDING],
  ["Approved - not for financing", ACKNOWLEDGED],
  ["To be approved", PENDING],
  ["Needs to be validated", PENDING],
  ["Will be approved", PENDING],
  ["Yet to be approved", PENDING],
  ["Draft - approved", PENDING],
  ["Paid (draft)", PENDING],
  ["Parked - posted", PENDING],
  ["Validated, to be paid", APPROVED],
  ["Approved, awaiting payment", APPROVED],
  ["Not a draft - approved", APPROVED]
]

export const adversarialCases: ReadonlyArray<AdversarialCase> = [
  ...group("negated payment", notPaid),
  ...group("negated payment, API forms", apiForms(notPaid.slice(0, 14))),
  ...group("withheld approval", notApproved),
  ...group("withheld approval, API forms", apiForms(notApproved.slice(0, 8))),
  ...group("negated financing", notSold),
  ...group("reversal", reversals),
  ...group("reversal, API forms", apiForms(reversals.slice(0, 8))),
  ...group("answer or question", answers),
  ...group("amount", amounts),
  ...group("imperative", imperatives),
  ...group("imperative, API forms", apiForms(imperatives.slice(0, 4))),
  ...group("ended dispute", ended),
  ...group("French and mixed", french),
  ...group("ambiguous", ambiguous),
  ...group("written after the rules", unseen),
  ...group("not for money", notForMoney)
]
