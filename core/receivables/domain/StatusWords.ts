/**
 * The words the status rules know, each with its roles, and the trie they are matched with
 * (longest known word first). Pure data and a lookup: depends on nothing. The policy the roles
 * serve is `docs/status-policy.md`; `StatusReading.ts` reads a text with them.
 */

// Roles a word can play. A word may have several (PENDING waits, is a step before a decision and
// makes a "paid" conditional).
export const NEG = 1 << 0
export const YET = 1 << 1
export const FILLER = 1 << 2
export const PARTIAL = 1 << 3
export const MODAL = 1 << 4
export const PAID = 1 << 5
export const PAYMENT = 1 << 6
export const DONE = 1 << 7
export const SOLD = 1 << 8
export const REFUSAL = 1 << 9
export const HOLD = 1 << 10
export const DECISION = 1 << 11
export const CHECK = 1 << 12
export const PENDING = 1 << 13
export const ACK = 1 << 14
export const WAITER = 1 << 15
export const STEP = 1 << 16
/**
 * Says what a document is for or must undergo: "for", "to be", "needs", "required", or a word that
 * is a purpose by itself ("payable": for payment). Negated next to a money word ("not for
 * payment", "not payable", "not to be paid", "no payment required"), it says the document is not
 * for money.
 */
export const PURPOSE = 1 << 17
export const FINANCING = 1 << 18
export const DUPLICATE = 1 << 19
export const SUSPECT = 1 << 20
export const OFFER = 1 << 21
/** Ends a dispute, rejection or hold it stands next to ("Dispute resolved", "Hold lifted"). */
export const ENDS = 1 << 22
/** A dispute, rejection or hold that an ENDS word next to it can end. */
export const ENDABLE = 1 << 23
/** Asks for an action ("Mark as paid", "Approve"): the words after it have not happened. */
export const IMPERATIVE = 1 << 24
/** A "yes" answer to a question or a flag ("Paid? Yes", "is_paid=true"). */
export const YES = 1 << 25
/** A full amount ("100%", "in full"): reads like a filler. */
export const FULL = 1 << 26
/** An auxiliary ("be", "will"): a negation before it bears on the verb after it. */
export const AUXILIARY = 1 << 27
/** An amount read from digits ("0%", "600 of 1200"), beside its other roles. */
export const AMOUNT = 1 << 28
/** A document not yet issued or posted ("draft", "parked"): whatever else it says, no money status. */
export const DRAFT = 1 << 29
/**
 * Says the word it governs is still to happen ("to be approved", "needs validated", "awaiting",
 * "pending"): an approval it governs has not been given.
 */
export const AWAITS = 1 << 30

const words: ReadonlyArray<readonly [number, string]> = [
  [NEG, "NOT NO NON WITHOUT FALSE ISNT HASNT HAVENT WASNT WERENT ARENT DONT DOESNT DIDNT CANNOT CANT PAS AUCUN SANS"],
  [NEG | YET, "NEVER JAMAIS"],
  [YET, "YET ENCORE"],
  [YES, "YES TRUE OUI"],
  [
    FILLER,
    "BEEN FULLY COMPLETELY TOTALLY LONGER IS HAS HAVE A AN THE AS BY OF AND OR YOUR FULL ON AT TO COMME EN DE MARKED DECLARED"
  ],
  [PARTIAL, "PARTIALLY PARTLY PARTIAL PART SHORT UNDERPAID PARTIELLEMENT PARTIELLE PARTIEL"],
  [MODAL, "EXPECTED UPCOMING PLANNED"],
  [MODAL | AWAITS | PURPOSE, "NEED"],
  // Auxiliaries: a negation passes through them to the verb ("cannot be paid", "will not be approved").
  [MODAL | AUXILIARY, "WILL SHALL SHOULD MUST MAY CAN COULD WOULD"],
  // "To be approved", "will be validated", "must be posted": what follows "be" is still to happen.
  [MODAL | AUXILIARY | AWAITS | PURPOSE, "BE"],
  [MODAL | WAITER, "READY"],
  [MODAL | WAITER | AWAITS | PURPOSE, "NEEDS NEEDED REQUIRES REQUIRED"],
  [MODAL | OFFER, "REQUESTED"],
  [MODAL | OFFER | IMPERATIVE, "REQUEST"],
  [OFFER, "AVAILABLE OFFERED OFFER PROPOSED"],
  [OFFER | CHECK, "ELIGIBLE CLEARING"],
  [MODAL | WAITER | PENDING | AWAITS, "PENDING AWAITING WAITING ATTENTE"],
  [MODAL | PENDING, "DUE"],
  [MODAL | CHECK, "SCHEDULED SCHEDULING"],
  [WAITER, "IN UNDER"],
  [WAITER | PURPOSE, "FOR"],
  [PAID, "PAID CASHED ENCAISSEE ENCAISSE DEPOSITED SOLDEE REGLEE REGLE PAYE"],
  // "Dispute settled" ends the dispute: settled next to one says nothing about money.
  [PAID | ENDS, "SETTLED"],
  // "Non payée": the French paid is spelt like the English payee, so only the negated form is known.
  [PAID | NEG, "IMPAYEE IMPAYE NONPAYEE"],
  [
    PAYMENT,
    "PAYMENT PAYMENTS PAYING PAIEMENT REMITTANCE REMITTED DISBURSEMENT DISBURSED FUNDS TRANSIT REGLEMENT SETTLEMENT"
  ],
  [PAYMENT | PURPOSE, "PAYABLE"],
  // "Pay now", "Pay invoice": the verb first is an action offered, not a payment under way.
  [PAYMENT | IMPERATIVE, "PAY"],
  [DONE, "COMPLETED COMPLETE CONFIRMED SUCCEEDED SUCCESSFUL SUCCESS DONE RECONCILED EXECUTED EFFECTUE EFFECTUEE"],
  [DONE | ENDS, "CLEARED"],
  [DONE | PENDING, "RECEIVED RECU RECUE"],
  [DONE | CHECK, "POSTED"],
  [SOLD, "SOLD FACTORED FINANCED FUNDED PURCHASED DISCOUNTED AFFACTUREE"],
  [FINANCING, "EARLY FINANCING FUNDING FACTORING DISCOUNTING FINANCE"],
  [
    REFUSAL,
    "REJECTED REJECT REJECTING REJETEE REJETE REFUSED REFUSEE REFUSE REFUSAL DENIED DECLINED " +
      "CANCEL CANCELING CANCELATION ANNULEE ANNULE VOID VOIDED DELETED DELETE OBSOLETED OBSOLETE " +
      "FAILED FAILURE FAIL ECHOUE ECHOUEE RETURNED RETURN RETOURNE RETOURNEE REVERSAL REFUNDED REFUND " +
      "CHARGEBACK UNCOLLECTIBLE EXPIRED ESCHEATED BOUNCED STOPPED CREDITNOTE CREDITMEMO CREDITED DEBITNOTE AVOIR " +
      "OFFSET NETTED WRITTENOFF WRITEOFF UNDELIVERED UNPAYABLE TIMEDOUT INVALID DELIVERYERROR SENDERROR " +
      "ROUTINGERROR ENTEREDINERROR RESCINDED RECALLED TERMINATED"
  ],
  // Reversals: a refusal of what they bear on, or the end of a dispute, rejection or hold next to them.
  [REFUSAL | ENDS, "WITHDRAWN REVOKED REVOQUEE REVOQUE REVERSED CANCELED ABANDONED ABANDONNEE RETIREE OVERTURNED"],
  [REFUSAL | ENDABLE, "REJECTION DISPUTED DISPUTE LITIGE CONTESTED CONTESTATION QUERY OBJECTION"],
  [REFUSAL | HOLD | ENDABLE, "HOLD HOLDS HELD BLOCKED BLOCK BLOCAGE SUSPENDED SUSPENDUE SUSPENSION"],
  [DUPLICATE, "DUPLICATE"],
  [SUSPECT | PENDING, "SUSPECTED POSSIBLE POTENTIAL"],
  [ENDS, "LIFTED REMOVED RESOLVED RESOLU RESOLUE CLOSED CLOS ENDED DROPPED LEVEE LEVE"],
  [ENDS | DECISION, "RELEASED"],
  [DECISION, "APPROVED APPROUVEE APPROUVE VALIDEE AUTHORIZED ACCEPTED ACCEPTEE AWARDED GRANTED OK"],
  [CHECK, "VALIDATED PROCESSED"],
  [STEP | PENDING, "APPROVAL APPROVALS REVIEW VALIDATION REVALIDATION VERIFICATION MATCHING MATCH RECEIPT"],
  [STEP | PENDING, "CODING ACTION CONFIRMATION SIGNATURE SIGN SCAN SUBMISSION AUTHORIZATION ACCEPTANCE APPROBATION"],
  [WAITER | PENDING, "SENT SUBMITTED"],
  [PENDING | IMPERATIVE, "SUBMIT"],
  [
    PENDING,
    "NEW NOUVEAU NOUVELLE OPEN OPENED OUVERTE SUBMITTING RESUBMITTED RESUBMIT REVIEWING " +
      "REVIEWED PROCESSING PROCESS PROGRESS APPROVING RECONCILING MATCHED UNMATCHED ENTERED SAVED QUEUED " +
      "DELIVERED DELIVERY VIEWED ISSUED ISSUING EMISE DEPOSEE OVERDUE EXCEPTION EXCEPTIONS ERROR ERRORS INCOMPLETE " +
      "WORKFLOW FLOW CREATED COMPLETEE TRAITEMENT SCANNING ROUTING ROUTED INVOICED FINALIZED FINAL UPLOADED " +
      "IMPORTED IMPORT BALANCE OUTSTANDING MAINTENANCE ENTRY EDIT CHANGE CHANGES POST PRISE DISPOSITION DELAYED " +
      "INCORRECT PREAPPROVED PREAPPROVAL UNASSIGNED MADEAVAILABLE TAKENINTOACCOUNT INHAND TRAITEE"
  ],
  // SAP parks a document it saves unposted: a draft, whatever step it reached ("Parked and released").
  [PENDING | DRAFT, "DRAFT BROUILLON PARKED"],
  [
    IMPERATIVE,
    "MARK SET PLEASE CLICK APPROVE ACCEPT AUTHORIZE VALIDATE SELL FACTOR CONFIRM RECORD MARQUER APPROUVER VALIDER REGLER"
  ],
  [ACK, "ACKNOWLEDGED ACKNOWLEDGMENT ACKNOWLEDGE SYNCED ARCHIVED ARCHIVE HISTORICAL"],
  // Known words with no role, so that longest match does not find roles inside them ("NOTICE",
  // "PAYEE", "DEPARTMENT", "REMARKS").
  [
    0,
    "INVOICE INVOICES INVOICING BILL BILLS BILLING PAYEE PAYER PAYROLL PARTNER PARTY DEPARTMENT NOTE NOTICE " +
      "NOTIFICATION NOTIFIED BALANCED NONE CREDIT DEBIT DOCUMENT COMPLETION PLATFORM RECIPIENT CUSTOMER SUPPLIER " +
      "VENDOR BUYER BANK TRANSFER INTERNAL ONLINE PROCESSOR NOTHING ANNOTATED ASSIGNED STATUS " +
      "REMARK REMARKS MARKET SELLER APPROVER APPROVERS SETTINGS SETUP RECORDED INSTALLMENT INSTALLMENTS PASSED PASSE LEVEL EXTENDED AMENDED"
  ]
]

export interface WordNode {
  readonly next: Array<WordNode | undefined>
  roles: number
  word: string | undefined
}
const node = (): WordNode => ({ next: [], roles: 0, word: undefined })
/** The trie's child index of a character code: letters and digits, -1 for anything else. */
export const slot = (code: number) => (code >= 65 && code <= 90 ? code - 65 : code >= 48 && code <= 57 ? code - 22 : -1)

/** The root of the trie of known words, by canonical (upper case, unaccented) spelling. */
export const knownWords = node()
/** The length of the longest known word: the most a match can read ahead. */
export let longestWord = 0
const add = (word: string, roles: number, override: boolean) => {
  let at = knownWords
  for (let i = 0; i < word.length; i++) {
    const s = slot(word.charCodeAt(i))
    let next = at.next[s]
    if (next === undefined) {
      next = node()
      at.next[s] = next
    }
    at = next
  }
  if (at.word === undefined || override) {
    at.roles = roles
    at.word = word
  }
  longestWord = Math.max(longestWord, word.length)
}
for (const [roles, list] of words) for (const word of list.split(" ")) add(word, roles, true)
// "Unpaid", "unapproved", "non-payment", "disapproved": the prefix negates the word it joins.
for (const [roles, list] of words) {
  if ((roles & (PAID | PAYMENT | SOLD | REFUSAL | DECISION | CHECK | PENDING | STEP)) === 0) continue
  for (const word of list.split(" ")) {
    add(`UN${word}`, (roles & ~IMPERATIVE) | NEG, false)
    add(`NON${word}`, (roles & ~IMPERATIVE) | NEG, false)
  }
}
add("DISAPPROVED", DECISION | NEG, true)

const bearing = NEG | YET | ENDS | YES | FILLER
/** A word that only bears on others: a negation, an ending, a "yes", a filler. */
export const isBearing = (found: WordNode) => found.roles !== 0 && (found.roles & ~bearing) === 0
/**
 * Words matched only where a word starts (where the run of letters starts, or right where the
 * previous known word ended): short words that decide something, imperatives and auxiliaries,
 * which would otherwise be found inside unknown words ("OK" in "booked", "MARK" in "benchmark",
 * "CAN" in "American"). Short fillers
 * match anywhere, so that "paidInOn" reads IN ON rather than a NON across them.
 */
export const isAnchored = (found: WordNode) =>
  (found.word!.length <= 2 && (found.roles & ~(FILLER | WAITER)) !== 0) ||
  found.roles === IMPERATIVE ||
  (found.roles & AUXILIARY) !== 0
