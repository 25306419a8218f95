/**
 * Reads a canonical status text (its words from `StatusTokens.ts`) and binds each negation,
 * answer, question, imperative, ending and word of what is still to happen to the word it governs,
 * so that the rules see "Payment not approved" as a payment and a withheld approval, "Paid? N" as a
 * paid answered no, and "To be approved" as an approval not given. One pass over the words: linear
 * in the input. Pure: depends on nothing but the status word modules.
 */
import { type Read, type ReadingWork, statusTokens } from "./StatusTokens.ts"
import {
  AMOUNT,
  AUXILIARY,
  AWAITS,
  CHECK,
  DECISION,
  ENDABLE,
  ENDS,
  FILLER,
  FULL,
  IMPERATIVE,
  NEG,
  PARTIAL,
  PURPOSE,
  REFUSAL,
  WAITER,
  YES,
  YET
} from "./StatusWords.ts"

export type { Read, Reading, ReadingWork, WordRead } from "./StatusTokens.ts"

const answers = new Set(["N", "NO", "NON", "FALSE", "0", "Y", "YES", "TRUE", "OUI", "1"])

const isAmount = (read: Read) => (read.roles & AMOUNT) !== 0
const isNegation = (roles: number) => (roles & NEG) !== 0 && (roles & ~(NEG | YET | AMOUNT)) === 0
// "for" alone: a negation before it bears on what the text is for ("not for payment").
const isPurposeWord = (roles: number) => (roles & PURPOSE) !== 0 && (roles & ~(PURPOSE | WAITER)) === 0
const isFiller = (roles: number) => roles === 0 || (roles & (FILLER | YET | PARTIAL | FULL | YES)) !== 0
/** A word the rules weigh: not a negation, a filler, a degree or a mark. */
export const isContent = (read: Read) => read.mark === undefined && !isNegation(read.roles) && !isFiller(read.roles)

/** Reads a canonical text (`canonicalStatusText`): its words with how the text puts each. */
export const readStatusText = (canonical: string, work: ReadingWork = { steps: 0 }): Array<Read> => {
  const reads = statusTokens(canonical, work)
  let lastContent = -1 // the last content word, which a trailing negation or a question bears on
  let keyOfMark = -1 // the content word before the last "?", "=" or ":", which an answer bears on
  let sinceMark = -1 // the last content word since the last mark
  let negation: { degree: number } | undefined // a negation waiting for the word it governs
  let lastDegree = -1
  let requesting: "verb" | "noun-like" | undefined // what started asking for an action, if anything
  let awaiting = false // the last word that carries meaning says the next one is still to happen
  let lastMark = -1 // where the text's last "?", "=" or ":" stands
  for (let k = 0; k < reads.length; k++) if (reads[k]!.mark !== undefined && reads[k]!.mark !== "%") lastMark = k
  const negate = (k: number) => {
    const read = reads[k]!
    if (read.reading === "asserted" || read.reading === "questioned") read.reading = "negated"
  }
  // A negation with no word after it bears on the word before it ("Paid - no", "is_paid=false").
  const settle = () => {
    if (negation === undefined) return
    const target = lastContent >= 0 ? lastContent : negation.degree >= 0 ? negation.degree : lastDegree
    if (target >= 0) negate(target)
    negation = undefined
  }
  for (let k = 0; k < reads.length; k++) {
    const read = reads[k]!
    if (read.mark !== undefined) {
      if (read.mark === "%") continue
      settle()
      awaiting = false
      if (read.mark === "?" && lastContent >= 0 && reads[lastContent]!.reading === "asserted")
        reads[lastContent]!.reading = "questioned"
      keyOfMark = sinceMark
      sinceMark = -1
      continue
    }
    const previous = reads[k - 1]
    if (previous?.mark !== undefined && previous.mark !== "%" && keyOfMark >= 0 && answers.has(read.word)) {
      // An answer to the word before the mark: "no" negates it, "yes" settles a question. A "no"
      // with words after it and no mark to the end may also start a phrase it negates ("Posted: no
      // payment required"): both readings stand, so the lesser status wins.
      if (isNegation(read.roles)) {
        negate(keyOfMark)
        if (k > lastMark) negation = { degree: -1 }
      } else if (reads[keyOfMark]!.reading === "questioned") reads[keyOfMark]!.reading = "asserted"
      continue
    }
    if (isNegation(read.roles)) {
      // A zero amount between a word and no other is its value ("Paid 0", "Paid $0.00", "Paid 0 of
      // 3"); anywhere else it bears on the word after it ("0% paid", "$0 paid", "sold, 0 paid").
      const next = reads[k + 1]
      if (isAmount(read) && previous !== undefined && isContent(previous) && !(next && isContent(next))) negate(k - 1)
      else negation ??= { degree: -1 }
      continue
    }
    // A known word with no role is what a negation before it governs ("no invoice"): it is spent.
    if (read.roles === 0) {
      if (negation !== undefined && negation.degree >= 0) negate(negation.degree)
      negation = undefined
      awaiting = false
      continue
    }
    if (isFiller(read.roles)) {
      if ((read.roles & PARTIAL) !== 0) {
        lastDegree = k
        if (negation !== undefined && negation.degree < 0) negation.degree = k
      }
      continue
    }
    if ((read.roles & AUXILIARY) !== 0 && negation !== undefined) {
      lastContent = k
      sinceMark = k
      continue
    }
    // A negated purpose: both the "for" and what it is for are negated ("not for payment").
    if (isPurposeWord(read.roles) && negation !== undefined) {
      read.reading = "negated"
      lastContent = k
      sinceMark = k
      continue
    }
    // "Mark as paid", "Approve", "Pay now": everything after an imperative is asked for, not done.
    // A verb with another meaning ("pay", "submit") is one only where the text starts (not "autopay").
    const imperative = (read.roles & IMPERATIVE) !== 0 && (read.roles === IMPERATIVE || read.at === 0)
    // After such a verb a refusal is one ("Request failed", "Pay rejected"); after a verb that is
    // only one, it is asked for too ("Approve or reject").
    const refusedAfterVerb = requesting === "noun-like" && (read.roles & REFUSAL) !== 0
    if ((requesting !== undefined || imperative) && !refusedAfterVerb) read.reading = "requested"
    else if (negation !== undefined || (read.roles & NEG) !== 0) read.reading = "negated"
    // "To be approved", "Needs to be validated", "Pending approved": an approval still to happen
    // has not been given. A payment or financing word so governed keeps its own reading: in flight
    // or offered, as a future or waiting word anywhere in the text already makes it.
    else if (awaiting && (read.roles & (DECISION | CHECK)) !== 0) read.reading = "awaited"
    if (imperative) requesting ??= read.roles === IMPERATIVE ? "verb" : "noun-like"
    negation = undefined
    awaiting = read.reading === "asserted" && (read.roles & AWAITS) !== 0
    lastContent = k
    sinceMark = k
  }
  settle()
  endDisputes(reads)
  return reads
}

/**
 * "Dispute resolved", "Rejection withdrawn", "Hold lifted": an ending word next to a dispute,
 * rejection or hold (as the content word before or after it) ends it, and both words are read as
 * ended rather than as a refusal or a payment ("Dispute settled").
 */
const endDisputes = (reads: Array<Read>) => {
  const content = reads.filter((read) => isContent(read) && read.reading === "asserted")
  for (let c = 0; c < content.length; c++) {
    const ending = content[c]!
    if ((ending.roles & ENDS) === 0 || ending.reading !== "asserted") continue
    for (const neighbour of [content[c - 1], content[c + 1]]) {
      if (neighbour === undefined || (neighbour.roles & ENDABLE) === 0 || neighbour.reading !== "asserted") continue
      neighbour.reading = "ended"
      ending.reading = "ended"
      break
    }
  }
}
