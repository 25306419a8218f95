/**
 * The conservative word rules behind `normalizeStatus`, for status texts that no table knows. The
 * text is read by `StatusReading.ts` (each negation, answer, question, imperative and ending bound
 * to the word it governs); a word put in doubt blocks every money status it could support, a draft
 * or a negated purpose of money ("not for payment") blocks them all, and the rules below decide in
 * order. Linear in the input. The policy, with its reasons, is `docs/status-policy.md`.
 */
import type { Status } from "./Status.ts"
import { isContent, type Read, readStatusText, type WordRead } from "./StatusReading.ts"
import {
  ACK,
  AMOUNT,
  CHECK,
  DECISION,
  DONE,
  DRAFT,
  DUPLICATE,
  FINANCING,
  MODAL,
  OFFER,
  PAID,
  PARTIAL,
  PAYMENT,
  PENDING,
  PURPOSE,
  REFUSAL,
  SOLD,
  STEP,
  SUSPECT,
  WAITER,
  YET
} from "./StatusWords.ts"

export type { WordRead } from "./StatusReading.ts"

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
  { name: "requested", status: "PENDING", why: "it asks for an action (mark as paid, approve, pay) not yet done" },
  {
    name: "refusal-ended",
    status: "PENDING",
    why: "the dispute, rejection or hold it names has ended, and nothing else says approved or paid"
  },
  {
    name: "pending",
    status: "PENDING",
    why: "it names a step before a decision (draft, submitted, in review, unpaid) or doubts a payment or an approval"
  },
  { name: "acknowledged", status: "ACKNOWLEDGED", why: "it only acknowledges receipt" }
] as const satisfies ReadonlyArray<{ readonly name: string; readonly status: Status; readonly why: string }>
export type StatusRule = (typeof statusRules)[number]

/** The rule that decided (its index in `statusRules`, -1 for none) and the word the status rests on. */
export interface StatusDecision {
  readonly rule: number
  readonly words: ReadonlyArray<WordRead>
  /** The word whose negation would take the status away; only for APPROVED, PAID and SOLD. */
  readonly decidedBy: WordRead | undefined
}

// Words that, put in doubt, leave a money status unsupported. A withheld approval or check blocks
// all three; a doubted payment or completion word blocks PAID, a doubted financing word SOLD; and
// any doubted money, waiting or offer word blocks the APPROVED that is only inferred (payment in
// flight, partial payment, financing offered), which needs a text that doubts nothing.
const blocksAll = DECISION | CHECK
const blocksPaid = blocksAll | PAID | PAYMENT | DONE
const blocksSold = blocksAll | SOLD | FINANCING
const blocksInFlight = blocksPaid | SOLD | FINANCING | OFFER | MODAL | WAITER | PENDING
// What a document is for when it is for money. A purpose of these negated, or negating them ("not
// for payment", "not payable", "not to be paid", "no payment required", "payment not required"),
// says the document is not one a factor can finance.
const moneyPurpose = PAID | PAYMENT | SOLD | FINANCING
const isPurposeOnly = (read: Read) => (read.roles & PURPOSE) !== 0 && (read.roles & moneyPurpose) === 0

const asWordRead = (read: Read): WordRead => ({ word: read.word, reading: read.reading, at: read.at })

/** Decides a canonical text (`canonicalStatusText`) by the rules. */
export const decideStatusRule = (canonical: string): StatusDecision => {
  const reads = readStatusText(canonical)
  let seen = 0 // roles of words as written
  let doubted = 0 // roles of words negated, asked or asked for
  let negated = 0 // roles of words negated
  let yet = false
  let requested = false
  let ended = false
  let awaiting = false
  let waiterAt = -100 // index (in content words) of the last word that waits for a step
  let content = 0
  let saysPartial = false // a word that says partial, not just an amount ("Partial" alone is partly paid)
  let draft = false // a draft, parked or unissued document, not negated
  let notForMoney = false // a negated purpose of money ("not for payment", "not payable")
  // The purpose words ("for", "to be", "needs") right before this word, and whether one is negated.
  let purposeNegated: boolean | undefined
  let moneyBefore: Read | undefined // the money word right before those purpose words, if any
  for (const read of reads) {
    if (read.roles & YET) yet = true
    if (read.reading === "ended") ended = true
    if (read.roles & PARTIAL && read.mark === undefined && !isContent(read)) {
      if (read.reading !== "asserted") doubted |= PARTIAL
      else {
        seen |= PARTIAL
        if ((read.roles & AMOUNT) === 0) saysPartial = true
      }
      continue
    }
    if (!isContent(read)) continue
    if (read.roles & DRAFT && read.reading !== "negated") draft = true
    const negatedHere = read.reading === "negated"
    if (isPurposeOnly(read)) {
      // "Payment not required", "no payment needed": the need after the money word is negated.
      purposeNegated = (purposeNegated ?? false) || negatedHere
      if (moneyBefore !== undefined && (purposeNegated || moneyBefore.reading === "negated")) notForMoney = true
    } else if (read.roles & moneyPurpose) {
      // "Not for payment", "no need for payment", "cannot be paid", "not payable".
      const purpose = purposeNegated !== undefined || (read.roles & PURPOSE) !== 0
      if (purposeNegated || (purpose && negatedHere)) notForMoney = true
      moneyBefore = read
      purposeNegated = undefined
    } else {
      moneyBefore = undefined
      purposeNegated = undefined
    }
    if (read.reading === "asserted") {
      seen |= read.roles
      if (read.roles & STEP && content - waiterAt <= 3) awaiting = true
      if (read.roles & WAITER) waiterAt = content
    } else if (read.reading !== "ended") {
      doubted |= read.roles
      if (read.reading === "negated") negated |= read.roles
      if (read.reading === "requested") requested = true
    }
    content += 1
  }
  const has = (role: number) => (seen & role) !== 0
  const first = (role: number) =>
    reads.find((read) => read.reading === "asserted" && read.roles & role && isContent(read))
  const partialWord = () =>
    reads.find((read) => read.reading === "asserted" && read.roles & PARTIAL && (read.roles & AMOUNT) === 0)
  const decided = (rule: number, by?: Read) => {
    const status = rule < 0 ? "ACKNOWLEDGED" : statusRules[rule]!.status
    const money = status === "APPROVED" || status === "PAID" || status === "SOLD"
    // An APPROVED text with an approval word rests on it whatever rule fired first: only its
    // negation takes APPROVED away.
    const restsOn = status === "APPROVED" ? (first(DECISION | CHECK) ?? by) : by
    return { rule, words: reads.map(asWordRead), decidedBy: money && restsOn ? asWordRead(restsOn) : undefined }
  }
  // A draft, or a document the text says is not for payment or financing, supports no money
  // status whatever its other words say ("Draft - approved", "Approved - not for payment").
  const unfit = draft || notForMoney
  const allBlocked = unfit || (doubted & blocksAll) !== 0
  const paidBlocked = unfit || (doubted & blocksPaid) !== 0
  const soldBlocked = unfit || (doubted & blocksSold) !== 0
  const inFlightBlocked = unfit || (doubted & blocksInFlight) !== 0

  if (has(REFUSAL) || (has(DUPLICATE) && !has(SUSPECT))) return decided(0)
  const conditional = has(MODAL) || has(OFFER)
  if (has(SOLD) && !conditional && !soldBlocked) return decided(1, first(SOLD))
  if ((has(SOLD) || has(FINANCING)) && conditional && !soldBlocked && !inFlightBlocked)
    return decided(2, first(SOLD | FINANCING))
  // A bare "Partial" is how payables tools write partly paid (Invoice Ninja, Harpoon).
  const onlyPartial = saysPartial && (seen & ~(PARTIAL | WAITER | MODAL)) === 0 && doubted === 0 && !ended
  if (has(PARTIAL) && !inFlightBlocked && (has(PAID) || has(PAYMENT) || onlyPartial))
    return decided(3, first(PAID | PAYMENT) ?? partialWord())
  if (has(PARTIAL) && has(DECISION)) return decided(4)
  if (awaiting) return decided(5)
  if (!has(MODAL) && !has(PARTIAL) && !paidBlocked && (has(PAID) || (has(PAYMENT) && has(DONE))))
    return decided(6, first(PAID) ?? first(DONE))
  if ((has(PAID) || has(PAYMENT)) && !inFlightBlocked) return decided(7, first(PAID) ?? first(PAYMENT))
  if ((has(DECISION) || has(CHECK)) && !allBlocked) return decided(8, first(DECISION | CHECK))
  if (negated & DECISION && !yet) return decided(9)
  if (requested) return decided(10)
  if (ended) return decided(11)
  if (has(PENDING) || has(STEP) || doubted & (PAID | PAYMENT | DECISION | CHECK | PENDING | DONE | MODAL))
    return decided(12)
  if (has(ACK)) return decided(13)
  return decided(-1)
}
