/**
 * Turns a canonical status text into the known words of `StatusWords.ts`, marks ("?", "=", ":",
 * "%"), single-letter answers and amounts, each with its offset, for `StatusReading.ts` to bind.
 * Linear in the input: each position tries words of at most `longestWord` letters, which a test
 * holds by counting the steps. Pure: depends on nothing but `StatusWords.ts`.
 */
import {
  AMOUNT,
  FULL,
  isAnchored,
  isBearing,
  knownWords,
  NEG,
  PARTIAL,
  slot,
  type WordNode,
  YES
} from "./StatusWords.ts"

/**
 * How the text puts a word: as written, negated ("not paid", "Paid? N", "0% paid"), asked ("Paid?"),
 * asked for ("Mark as paid"), ended ("Dispute resolved": both words), or still to happen (an
 * approval "to be approved", "needs validated", "pending approved").
 */
export type Reading = "asserted" | "negated" | "questioned" | "requested" | "ended" | "awaited"

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
const word = (text: string, roles: number, at: number): Read => ({
  word: text,
  roles,
  at,
  mark: undefined,
  reading: "asserted"
})

/**
 * The work a reading did: one step per token and per character the word matcher looked at. Tests
 * hold it linear in the text's length, which wall time cannot show reliably.
 */
export interface ReadingWork {
  steps: number
}

type Lexed = Read | { readonly digits: string; readonly at: number }

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
    // Tokens belong to one amount only when nothing stands between them: unknown letters leave no
    // item behind, so positions are compared. `end` is where the next token of the amount starts.
    const run: Array<string> = [item.digits]
    let end = item.at + item.digits.length + 1
    for (k += 1; k < items.length; k++) {
      const next = items[k]!
      if (next.at !== end) break
      if ("digits" in next) {
        run.push(next.digits)
        end = next.at + next.digits.length + 1
      } else if (next.mark === ":" && isDigits(items[k + 1]) && items[k + 1]!.at === end + 2) end += 2
      // A time or a ratio ("12:00") is one number: the colon between its digits is no mark.
      else break
    }
    const zero = run.every((part) => zeros.test(part))
    const percent = (items[k] as Read | undefined)?.mark === "%" && items[k]!.at === end
    if (percent) k += 1
    // "Paid 600 of 1200", "Paid 0 of 3": an amount of a whole.
    const total: Array<string> = []
    const of = items[k] as Read | undefined
    if (!percent && of?.word === "OF" && of.at === end && isDigits(items[k + 1]) && items[k + 1]!.at === end + 3)
      for (k += 1; isDigits(items[k]); k++) total.push((items[k] as { digits: string }).digits)
    const text = `${run.join(".")}${percent ? "%" : ""}${total.length > 0 ? ` OF ${total.join(".")}` : ""}`
    // Every spelling of a bare zero ("00", "0.00") answers like "0" ("Paid: 0.00").
    if (zero) out.push(word(percent || total.length > 0 ? text : "0", NEG | AMOUNT, item.at))
    else if (percent) {
      const whole = Number(run[0]) === 100 && run.slice(1).every((part) => zeros.test(part))
      out.push(word(text, (whole ? FULL : PARTIAL) | AMOUNT, item.at))
    } else if (total.length > 0)
      out.push(word(text, (amount(run) === amount(total) ? FULL : PARTIAL) | AMOUNT, item.at))
    else if (text === "1") out.push(word(text, YES, item.at))
  }
  return out
}
const isDigits = (item: Lexed | undefined) => item !== undefined && "digits" in item
const amount = (run: ReadonlyArray<string>) => Number(run.length === 1 ? run[0] : `${run[0]}.${run.slice(1).join("")}`)

/** The words, marks and amounts of a canonical text, in order, all read as written so far. */
export const statusTokens = (canonical: string, work: ReadingWork): Array<Read> => numbers(lex(canonical, work))
