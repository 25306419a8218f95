/**
 * The conservative word rules behind `normalizeStatus`, for status texts that no table knows. The
 * text is read as a sequence of known words (joined words are split by longest match, so
 * "PartiallyPaid" and "Partially Paid" read alike), each word's role is collected with its negation,
 * and the rules below decide in order. One pass, a bounded look-back: linear in the input.
 * The policy they implement, with its reasons, is `docs/status-policy.md`.
 */
import type { Status } from "./Status.ts"

// Roles a word can play. A word may have several (PENDING waits, is a step before a decision and
// makes a "paid" conditional).
const NEG = 1 << 0
const YET = 1 << 1
const FILLER = 1 << 2
const PARTIAL = 1 << 3
const MODAL = 1 << 4
const PAID = 1 << 5
const PAYMENT = 1 << 6
const DONE = 1 << 7
const SOLD = 1 << 8
const REFUSAL = 1 << 9
const HOLD = 1 << 10
const DECISION = 1 << 11
const CHECK = 1 << 12
const PENDING = 1 << 13
const ACK = 1 << 14
const WAITER = 1 << 15
const STEP = 1 << 16
const RELEASE = 1 << 17
const FINANCING = 1 << 18
const DUPLICATE = 1 << 19
const SUSPECT = 1 << 20
const OFFER = 1 << 21

const words: ReadonlyArray<readonly [number, string]> = [
  [NEG, "NOT NO NON WITHOUT FALSE ISNT HASNT HAVENT WASNT WERENT ARENT DONT DOESNT DIDNT CANNOT CANT"],
  [NEG | YET, "NEVER"],
  [YET, "YET"],
  [FILLER, "BEEN FULLY COMPLETELY TOTALLY LONGER IS HAS HAVE A AN THE AS BY OF AND OR YOUR FULL"],
  [PARTIAL, "PARTIALLY PARTLY PARTIAL PART SHORT UNDERPAID PARTIELLEMENT PARTIELLE PARTIEL"],
  [MODAL, "NEED WILL BE EXPECTED UPCOMING PLANNED"],
  [MODAL | WAITER, "NEEDS READY REQUIRES REQUIRED"],
  [MODAL | OFFER, "REQUESTED REQUEST"],
  [OFFER, "AVAILABLE OFFERED OFFER PROPOSED"],
  [OFFER | CHECK, "ELIGIBLE CLEARING"],
  [MODAL | WAITER | PENDING, "PENDING AWAITING WAITING ATTENTE"],
  [MODAL | PENDING, "DUE"],
  [MODAL | CHECK, "SCHEDULED SCHEDULING"],
  [WAITER, "IN UNDER FOR"],
  [PAID, "PAID SETTLED CASHED ENCAISSEE ENCAISSE DEPOSITED SOLDEE REGLEE REGLE PAYE"],
  [PAID | NEG, "IMPAYEE IMPAYE"],
  [PAYMENT, "PAYMENT PAYMENTS PAY PAYING PAYABLE PAIEMENT REMITTANCE REMITTED DISBURSEMENT DISBURSED FUNDS TRANSIT"],
  [DONE, "COMPLETED COMPLETE CLEARED CONFIRMED SUCCEEDED SUCCESSFUL SUCCESS DONE RECONCILED EXECUTED"],
  [DONE | PENDING, "RECEIVED RECU"],
  [DONE | CHECK, "POSTED"],
  [SOLD, "SOLD FACTORED FINANCED FUNDED PURCHASED DISCOUNTED AFFACTUREE"],
  [FINANCING, "EARLY FINANCING FUNDING FACTORING DISCOUNTING FINANCE"],
  [
    REFUSAL,
    "REJECTED REJECT REJECTING REJECTION REJETEE ABANDONNEE REFUSED REFUSEE REFUSAL DENIED DECLINED DISPUTED DISPUTE LITIGE " +
      "CONTESTED CANCELED CANCEL CANCELING CANCELATION ANNULEE VOID VOIDED DELETED DELETE OBSOLETED OBSOLETE " +
      "ABANDONED WITHDRAWN FAILED FAILURE FAIL RETURNED RETURN REVERSED REVERSAL REFUNDED REFUND CHARGEBACK " +
      "UNCOLLECTIBLE EXPIRED ESCHEATED BOUNCED STOPPED QUERY CREDITNOTE CREDITMEMO CREDITED DEBITNOTE AVOIR " +
      "OFFSET NETTED WRITTENOFF WRITEOFF UNDELIVERED UNPAYABLE TIMEDOUT INVALID DELIVERYERROR SENDERROR " +
      "ROUTINGERROR ENTEREDINERROR"
  ],
  [REFUSAL | HOLD, "HOLD HOLDS HELD BLOCKED BLOCK SUSPENDED SUSPENDUE"],
  [DUPLICATE, "DUPLICATE"],
  [SUSPECT | PENDING, "SUSPECTED POSSIBLE POTENTIAL"],
  [RELEASE, "LIFTED REMOVED"],
  [RELEASE | DECISION, "RELEASED"],
  [DECISION, "APPROVED APPROUVEE VALIDEE AUTHORIZED ACCEPTED ACCEPTEE AWARDED OK"],
  [CHECK, "VALIDATED PROCESSED"],
  [STEP | PENDING, "APPROVAL APPROVALS REVIEW VALIDATION REVALIDATION VERIFICATION MATCHING MATCH RECEIPT"],
  [STEP | PENDING, "CODING ACTION CONFIRMATION SIGNATURE SIGN SCAN SUBMISSION AUTHORIZATION"],
  [WAITER | PENDING, "SENT SUBMITTED"],
  [
    PENDING,
    "DRAFT BROUILLON NEW NOUVEAU NOUVELLE OPEN OPENED OUVERTE SUBMITTING SUBMIT RESUBMITTED RESUBMIT REVIEWING " +
      "REVIEWED PROCESSING PROCESS PROGRESS APPROVING RECONCILING MATCHED UNMATCHED PARKED ENTERED SAVED QUEUED " +
      "DELIVERED DELIVERY VIEWED ISSUED ISSUING EMISE DEPOSEE OVERDUE EXCEPTION EXCEPTIONS ERROR ERRORS INCOMPLETE " +
      "WORKFLOW FLOW CREATED COMPLETEE TRAITEMENT SCANNING ROUTING ROUTED INVOICED FINALIZED FINAL UPLOADED " +
      "IMPORTED IMPORT BALANCE OUTSTANDING MAINTENANCE ENTRY EDIT CHANGE CHANGES POST PRISE DISPOSITION DELAYED " +
      "INCORRECT PREAPPROVED PREAPPROVAL UNASSIGNED MADEAVAILABLE TAKENINTOACCOUNT INHAND TRAITEE"
  ],
  [ACK, "ACKNOWLEDGED ACKNOWLEDGMENT ACKNOWLEDGE SYNCED ARCHIVED ARCHIVE HISTORICAL"],
  // Known words with no role, so that longest match does not find roles inside them ("NOTICE",
  // "PAYEE", "DEPARTMENT").
  [
    0,
    "INVOICE INVOICES INVOICING BILL BILLS BILLING PAYEE PAYER PAYROLL PARTNER PARTY DEPARTMENT NOTE NOTICE " +
      "NOTIFICATION NOTIFIED BALANCED NONE CREDIT DEBIT DOCUMENT COMPLETION PLATFORM RECIPIENT CUSTOMER SUPPLIER " +
      "VENDOR BUYER BANK TRANSFER INTERNAL ONLINE PROCESSOR NOTHING ANNOTATED ASSIGNED STATUS"
  ]
]

interface Node {
  readonly next: Array<Node | undefined>
  roles: number
  word: string | undefined
}
const node = (): Node => ({ next: [], roles: 0, word: undefined })
const slot = (code: number) => (code >= 65 && code <= 90 ? code - 65 : code >= 48 && code <= 57 ? code - 22 : -1)

const trie = node()
const add = (word: string, roles: number, override: boolean) => {
  let at = trie
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
}
for (const [roles, list] of words) for (const word of list.split(" ")) add(word, roles, true)
// "Unpaid", "unapproved", "non-payment", "disapproved": the prefix negates the word it joins.
for (const [roles, list] of words) {
  if ((roles & (PAID | PAYMENT | SOLD | REFUSAL | DECISION | CHECK | PENDING | STEP)) === 0) continue
  for (const word of list.split(" ")) {
    add(`UN${word}`, roles | NEG, false)
    add(`NON${word}`, roles | NEG, false)
  }
}
add("DISAPPROVED", DECISION | NEG, true)

/** What one reading of a text found, kept only for explanations. */
export interface WordRead {
  readonly word: string
  readonly negated: boolean
}

/** The rules, in precedence order: the first that applies decides. */
export const statusRules = [
  { name: "refusal", status: "DISPUTED", why: "it names a refusal, cancellation, hold, failure, reversal or credit" },
  { name: "financed", status: "SOLD", why: "it says the receivable was financed (sold, factored, funded, discounted)" },
  { name: "financing-offered", status: "APPROVED", why: "financing or early payment is only offered or requested" },
  { name: "partial-payment", status: "APPROVED", why: "only part of the amount is paid, so it is not PAID" },
  { name: "partial-approval", status: "DISPUTED", why: "only part of the amount is approved, the rest is refused" },
  { name: "awaiting-approval", status: "PENDING", why: "it waits for an approval, review, receipt or check" },
  { name: "paid", status: "PAID", why: "it says the money arrived (paid, settled, cashed, payment received)" },
  { name: "payment-in-flight", status: "APPROVED", why: "a payment is due, scheduled or under way, not arrived" },
  { name: "approved", status: "APPROVED", why: "it names an approval, acceptance or validation" },
  { name: "not-approved", status: "DISPUTED", why: "it says the approval was withheld" },
  {
    name: "pending",
    status: "PENDING",
    why: "it names a step before a decision (draft, submitted, in review, unpaid)"
  },
  { name: "acknowledged", status: "ACKNOWLEDGED", why: "it only acknowledges receipt" }
] as const satisfies ReadonlyArray<{ readonly name: string; readonly status: Status; readonly why: string }>
export type StatusRule = (typeof statusRules)[number]

/**
 * The index in `statusRules` of the rule that decides for a compact key (canonical text without
 * spaces), or -1 when none applies. `trace`, when given, receives the words read.
 */
const isNegation = (roles: number) => (roles & NEG) !== 0 && (roles & ~(NEG | YET)) === 0
const isFiller = (roles: number) => (roles & (FILLER | YET | PARTIAL)) !== 0 || roles === 0

/** The known words of a compact key, longest match first; unknown characters are skipped. */
const wordsOf = (key: string): Array<Node> => {
  const found: Array<Node> = []
  for (let i = 0; i < key.length; ) {
    // Longest known word starting here; unknown characters are skipped one by one.
    let at: Node | undefined = trie
    let match: Node | undefined
    let end = i
    for (let j = i; j < key.length && at !== undefined; j++) {
      at = at.next[slot(key.charCodeAt(j))]
      if (at?.word !== undefined) {
        match = at
        end = j + 1
      }
    }
    if (match === undefined) {
      i += 1
      continue
    }
    i = end
    found.push(match)
  }
  // A negation after the last word it can bear on ("Paid? No", "is_paid: false", "Sold: false")
  // negates that word: it is read as if it stood before it.
  let last = found.length - 1
  while (last >= 0 && isFiller(found[last]!.roles)) last -= 1
  if (last > 0 && isNegation(found[last]!.roles)) {
    let target = last - 1
    while (target >= 0 && isFiller(found[target]!.roles)) target -= 1
    if (target >= 0 && !isNegation(found[target]!.roles)) {
      const [negation] = found.splice(last, 1)
      found.splice(target, 0, negation!)
    }
  }
  return found
}

export const decideRule = (key: string, trace?: Array<WordRead>): number => {
  let seen = 0 // roles of words read without negation
  let negatedSeen = 0 // roles of words read under negation
  let negWindow = 0
  let yet = false
  let waiterAt = -100 // index (in content words) of the last word that waits for a step
  let awaiting = false
  let content = 0
  let otherRefusal = false
  for (const found of wordsOf(key)) {
    const roles = found.roles
    if (roles & YET) yet = true
    if (isNegation(roles)) {
      negWindow = 3
      trace?.push({ word: found.word!, negated: false })
      continue
    }
    // Fillers and degree words ("not yet", "not partially") leave the negation to the word it bears on.
    if (isFiller(roles)) {
      if (roles & PARTIAL) seen |= PARTIAL
      trace?.push({ word: found.word!, negated: false })
      continue
    }
    const negated = negWindow > 0 || (roles & NEG) !== 0
    negWindow = 0
    trace?.push({ word: found.word!, negated })
    if (negated) negatedSeen |= roles
    else {
      seen |= roles
      if (roles & REFUSAL && (roles & HOLD) === 0) otherRefusal = true
      if (roles & STEP && content - waiterAt <= 3) awaiting = true
      if (roles & WAITER) waiterAt = content
    }
    content += 1
  }
  const has = (role: number) => (seen & role) !== 0
  // A hold the same text says was released ("hold released") is no longer a refusal.
  const refused = otherRefusal || (has(HOLD) && !has(RELEASE))
  if (refused || (has(DUPLICATE) && !has(SUSPECT))) return 0
  const conditional = has(MODAL) || has(OFFER)
  if (has(SOLD)) return conditional ? 2 : 1
  if (has(FINANCING) && conditional) return 2
  // A bare "Partial" is how payables tools write partly paid (Invoice Ninja, Harpoon).
  const onlyPartial = (seen & ~(PARTIAL | WAITER | MODAL)) === 0
  if (has(PARTIAL) && (has(PAID) || has(PAYMENT) || (negatedSeen & PAID) !== 0 || onlyPartial)) return 3
  if (has(PARTIAL) && has(DECISION)) return 4
  if (awaiting) return 5
  if (!has(MODAL) && (has(PAID) || (has(PAYMENT) && has(DONE)))) return 6
  if (has(PAID) || has(PAYMENT)) return 7
  if (has(DECISION) || has(CHECK)) return 8
  if (negatedSeen & DECISION && !yet) return 9
  if (has(PENDING) || has(STEP) || negatedSeen & (PAID | PAYMENT | DECISION | CHECK | PENDING)) return 10
  if (has(ACK)) return 11
  return -1
}
