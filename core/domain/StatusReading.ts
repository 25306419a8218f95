/**
 * Reads a canonical status text as a sequence of known words (`StatusWords.ts`) and binds each
 * negation, answer, question, imperative and ending to the word it governs, so that the rules see
 * "Payment not approved" as a payment and a withheld approval, and "Paid? N" as a paid answered no.
 * One pass over the text with a look-ahead bounded by the longest word: linear in the input.
 * Pure: depends on nothing but `StatusWords.ts`.
 */
import {
  AUXILIARY,
  ENDABLE,
  ENDS,
  FILLER,
  FULL,
  IMPERATIVE,
  isAnchored,
  isBearing,
  knownWords,
  NEG,
  PARTIAL,
  slot,
  type WordNode,
  YES,
  YET
} from "./StatusWords.ts"

/**
 * How the text puts a word: as written, negated ("not paid", "Paid? N", "0% paid"), asked ("Paid?"),
 * asked for ("Mark as paid"), or ended ("Dispute resolved": both words).
 */
export type Reading = "asserted" | "negated" | "questioned" | "requested" | "ended"

/** One word (or mark) of a reading, with its offset in the canonical text. */
export interface WordRead {
  readonly word: string
  readonly reading: Reading
  readonly at: number
}

export interface Read {
  readonly word: string
  readonly roles: number
  readonly at: number
  /** "?", "=", ":" or "%" for a mark, undefined for a word. */
  readonly mark: string | undefined
  reading: Reading
}

const marks = new Set(["?", "=", ":", "%"])
const digits = /^[0-9]+$/
const zeros = /^0+$/
// Single letters answer a question or a flag ("Paid? N", "Is Paid = Y"); as parts of words they
// mean nothing, so they are read only as whole tokens.
const letters: Readonly<Record<string, number>> = { N: NEG, Y: YES }
const answers = new Set(["N", "NO", "NON", "FALSE", "0", "Y", "YES", "TRUE", "OUI", "1"])

const isAmount = (read: Read) => read.word.charCodeAt(0) <= 57
const isNegation = (roles: number) => (roles & NEG) !== 0 && (roles & ~(NEG | YET)) === 0
const isFiller = (roles: number) => roles === 0 || (roles & (FILLER | YET | PARTIAL | FULL | YES)) !== 0
/** A word the rules weigh: not a negation, a filler, a degree or a mark. */
export const isContent = (read: Read) => read.mark === undefined && !isNegation(read.roles) && !isFiller(read.roles)

type Lexed = Read | { readonly digits: string; readonly at: number }

const word = (text: string, roles: number, at: number): Read => ({
  word: text,
  roles,
  at,
  mark: undefined,
  reading: "asserted"
})

/**
 * The known words of a run of letter tokens, read without its spaces, so that "partially paid",
 * "PartiallyPaid" and "PARTIALLY_PAID" read alike (a word spans tokens only whole ones). Of all readings (unknown letters skipped), the
 * one that covers the most letters with known words, then the one with the fewest words: "not
 * executed" is NOT EXECUTED, never NOTE and unknown letters. Linear: each letter tries words of at
 * most `longestWord` letters.
 */
const scanLetters = (text: string, start: number, end: number, out: Array<Lexed>, work: ReadingWork) => {
  const at: Array<number> = []
  const slots: Array<number> = []
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i)
    if (code === 32) continue
    at.push(i)
    slots.push(slot(code))
  }
  const n = at.length
  const tokenStart = (i: number) => i === 0 || at[i]! !== at[i - 1]! + 1
  // Where a known word starts: a word that only bears on others must end at one ("NOTPAID"), not
  // inside an unknown word ("NOW").
  const startsWord = new Uint8Array(n + 1)
  for (let i = 0; i < n; i++) {
    let node: WordNode | undefined = knownWords
    for (let j = i; j < n && node !== undefined && startsWord[i] === 0; j++) {
      work.steps += 1
      node = node.next[slots[j]!]
      if (node?.word !== undefined) startsWord[i] = 1
    }
  }
  // Two states per position: odd where the previous word ended (or the run starts), even after a
  // skipped letter; an anchored word starts only at the first or at a token's start. A score counts covered letters, then fewer
  // words; -1 is unreached.
  const score = new Float64Array(2 * (n + 1)).fill(-1)
  const from = new Int32Array(2 * (n + 1))
  const chosen = new Array<WordNode | undefined>(2 * (n + 1)).fill(undefined)
  const relax = (to: number, value: number, origin: number, found: WordNode | undefined) => {
    if (value <= score[to]!) return
    score[to] = value
    from[to] = origin
    chosen[to] = found
  }
  score[1] = 0
  for (let here = 0; here < 2 * n; here++) {
    const base = score[here]!
    if (base < 0) continue
    const i = here >> 1
    relax(2 * (i + 1), base, here, undefined)
    let node: WordNode | undefined = knownWords
    let crossed = false
    for (let j = i; j < n && node !== undefined; j++) {
      work.steps += 1
      node = node.next[slots[j]!]
      crossed ||= j > i && tokenStart(j)
      if (node?.word === undefined) continue
      // A word may span tokens ("CREDIT NOTE", "IN HAND") only when it starts and ends with them:
      // "yes ca not approved" holds no SCAN.
      if (crossed && !(tokenStart(i) && (j + 1 === n || tokenStart(j + 1)))) continue
      if ((here & 1) === 0 && !tokenStart(i) && isAnchored(node)) continue
      if (isBearing(node) && j + 1 < n && startsWord[j + 1] === 0) continue
      relax(2 * (j + 1) + 1, base + node.word.length * 64 - 1, here, node)
    }
  }
  const found: Array<Read> = []
  for (let here = score[2 * n + 1]! >= score[2 * n]! ? 2 * n + 1 : 2 * n; here > 1; ) {
    const origin = from[here]!
    const node = chosen[here]
    if (node !== undefined) found.push(word(node.word!, node.roles, at[origin >> 1]!))
    here = origin
  }
  for (let k = found.length - 1; k >= 0; k--) out.push(found[k]!)
}

/** The tokens of the text: runs of letter tokens read as words, marks, numbers and single letters. */
const lex = (text: string, work: ReadingWork): Array<Lexed> => {
  const out: Array<Lexed> = []
  let run = -1 // where the current run of letter tokens starts
  for (let i = 0; i < text.length; ) {
    let end = text.indexOf(" ", i)
    if (end < 0) end = text.length
    const token = text.slice(i, end)
    work.steps += 1
    const letter = letters[token]
    if (marks.has(token) || digits.test(token) || letter !== undefined) {
      if (run >= 0) scanLetters(text, run, i - 1, out, work)
      run = -1
      if (marks.has(token)) out.push({ word: token, roles: 0, at: i, mark: token, reading: "asserted" })
      else if (letter === undefined) out.push({ digits: token, at: i })
      else out.push(word(token, letter, i))
    } else if (run < 0) run = i
    i = end + 1
  }
  if (run >= 0) scanLetters(text, run, text.length, out, work)
  return out
}

/**
 * Numbers as words: a zero amount ("0", "0.00", "0%") is a negation of what it bears on, a
 * percentage of 100 or "1200 of 1200" a full amount, any other percentage or "600 of 1200" a part.
 * Other numbers (dates, times, references, amounts whose whole is unknown) are left out.
 */
const numbers = (items: ReadonlyArray<Lexed>): Array<Read> => {
  const out: Array<Read> = []
  for (let k = 0; k < items.length; ) {
    const item = items[k]!
    if (!("digits" in item)) {
      out.push(item)
      k += 1
      continue
    }
    const run: Array<string> = []
    // A time or a ratio ("12:00") is one number: the colon between its digits is no mark.
    for (; k < items.length; k++) {
      const next = items[k]!
      if ("digits" in next) run.push(next.digits)
      else if (!(next.mark === ":" && items[k + 1] !== undefined && "digits" in items[k + 1]!)) break
    }
    const zero = run.every((part) => zeros.test(part))
    const percent = (items[k] as Read | undefined)?.mark === "%"
    if (percent) k += 1
    const text = percent ? `${run.join(".")}%` : run.join(".")
    if (zero && !percent && (items[k] as Read | undefined)?.word === "OF" && isDigits(items[k + 1])) {
      // "Paid 0 of 3": nothing of the whole.
      const total: Array<string> = []
      for (k += 1; isDigits(items[k]); k++) total.push((items[k] as { digits: string }).digits)
      out.push(word(`${text} OF ${total.join(".")}`, NEG, item.at))
    } else if (zero) out.push(word(run.length === 1 && !percent ? "0" : text, NEG, item.at))
    else if (percent) {
      const whole = Number(run[0]) === 100 && run.slice(1).every((part) => zeros.test(part))
      out.push(word(text, whole ? FULL : PARTIAL, item.at))
    } else if ((items[k] as Read | undefined)?.word === "OF" && isDigits(items[k + 1])) {
      // "Paid 600 of 1200": a part, unless the two amounts are the same.
      const total: Array<string> = []
      for (k += 1; isDigits(items[k]); k++) total.push((items[k] as { digits: string }).digits)
      out.push(word(`${text} OF ${total.join(".")}`, amount(run) === amount(total) ? FULL : PARTIAL, item.at))
    } else if (run.length === 1 && run[0] === "1") out.push(word("1", YES, item.at))
  }
  return out
}
const isDigits = (item: Lexed | undefined) => item !== undefined && "digits" in item
const amount = (run: ReadonlyArray<string>) => Number(run.length === 1 ? run[0] : `${run[0]}.${run.slice(1).join("")}`)

/**
 * The work a reading did: one step per token and per character the word matcher looked at. Tests
 * hold it linear in the text's length, which wall time cannot show reliably.
 */
export interface ReadingWork {
  steps: number
}

/** Reads a canonical text (`canonicalStatusText`): its words with how the text puts each. */
export const readStatusText = (canonical: string, work: ReadingWork = { steps: 0 }): Array<Read> => {
  const reads = numbers(lex(canonical, work))
  let lastContent = -1 // the last content word, which a trailing negation or a question bears on
  let keyOfMark = -1 // the content word before the last "?", "=" or ":", which an answer bears on
  let sinceMark = -1 // the last content word since the last mark
  let negation: { degree: number } | undefined // a negation waiting for the word it governs
  let lastDegree = -1
  let requesting = false
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
      if (read.mark === "?" && lastContent >= 0 && reads[lastContent]!.reading === "asserted")
        reads[lastContent]!.reading = "questioned"
      keyOfMark = sinceMark
      sinceMark = -1
      continue
    }
    const previous = reads[k - 1]
    if (previous?.mark !== undefined && previous.mark !== "%" && keyOfMark >= 0 && answers.has(read.word)) {
      // An answer to the word before the mark: "no" negates it, "yes" settles a question.
      if (isNegation(read.roles)) negate(keyOfMark)
      else if (reads[keyOfMark]!.reading === "questioned") reads[keyOfMark]!.reading = "asserted"
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
    // "Mark as paid", "Approve", "Pay now": everything after an imperative is asked for, not done.
    // A verb with another meaning ("pay", "submit") is one only where the text starts (not "autopay").
    const imperative = (read.roles & IMPERATIVE) !== 0 && (read.roles === IMPERATIVE || read.at === 0)
    if (requesting || imperative) read.reading = "requested"
    else if (negation !== undefined || (read.roles & NEG) !== 0) read.reading = "negated"
    if (imperative) requesting = true
    negation = undefined
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
