/**
 * Which of a debtor's coded responses about one invoice counts: the latest by its own issue time,
 * never by the order files arrive or are named in. Responses issued at the same instant (a
 * network that keeps dates only) are ordered by how far along the lifecycle their code is, then
 * by the response's own id (as a number, `idNumber`), then by what the responses say happened,
 * the lesser outcome counting (a partial payment over a whole one, a smaller amount over a larger):
 * a message delivered twice with different contents must not be decided by file order, and of two
 * readings the one that claims less money is the one that cannot overstate a receivable. So the
 * same inbox always gives the same status, whatever the order of its files. Pure.
 */
import { detached } from "./cxml/XmlFiles.ts"

export interface Response {
  /** When the debtor issued it, in milliseconds since the epoch. */
  readonly at: number
  /** How far along the lifecycle its code is: at equal times, the higher wins. */
  readonly rank: number
  /**
   * The response's own id, the last tie-break, as `idNumber` makes it: a number, because one
   * response per invoice of an inbox is held during a fetch and a string each would not fit the
   * connectors' memory bound.
   */
  readonly id: number
}

/** The code of a rank in a connector's table of codes: a response's code is kept as its rank (one number per invoice held, not two fields). */
export const codeOfRank = <C extends string>(
  codes: Readonly<Record<C, { readonly rank: number }>>,
  rank: number
): C => {
  for (const code in codes) if (codes[code].rank === rank) return code
  // Ranks kept come from the same table: a rank without a code is a defect, not input.
  throw new Error(`no code has the rank ${rank}`)
}

/** A response's id as a number (32-bit FNV-1a of its UTF-16 code units): the same id, the same number. */
export const idNumber = (id: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193)
  return hash >>> 0
}

/**
 * How two responses with the same time, code and id compare by what they say: below zero when
 * `a` says less happened. It must order every field a connector keeps, so that only identical
 * responses tie and file order decides nothing.
 */
export type Lesser<R extends Response> = (a: R, b: R) => number

/** Ascending order of two numbers or two strings, for `Lesser` functions: chain them with `||`. */
export const ascending = <T extends number | string>(a: T, b: T): number => (a < b ? -1 : a > b ? 1 : 0)

/** Whether `candidate` counts over `known`. */
export const isLater = <R extends Response>(candidate: R, known: R, lesser: Lesser<R>): boolean =>
  candidate.at !== known.at
    ? candidate.at > known.at
    : candidate.rank !== known.rank
      ? candidate.rank > known.rank
      : candidate.id !== known.id
        ? candidate.id > known.id
        : lesser(candidate, known) < 0

/** The one that counts of two, either possibly absent. */
export const latestOf = <R extends Response>(a: R | undefined, b: R | undefined, lesser: Lesser<R>): R | undefined =>
  a === undefined ? b : b === undefined ? a : isLater(b, a, lesser) ? b : a

/**
 * An invoice's key in a connector's index of responses: its number, and its issue date when the
 * response gives it (a number can be reused from one year to the next). Kept keys are
 * `detached`: one flat string, not the pieces it was joined from.
 */
export const referenceKey = (number: string, issueDate: string | undefined) => `${number}\u0000${issueDate ?? ""}`

/** A `referenceKey` as a reader would write it: `F-1 of 2026-11-02`, or the number alone. */
export const referenceText = (key: string) => key.split("\u0000").filter(Boolean).join(" of ")

/**
 * The copies of invoice numbers a fetch has read, to tell a resend (the same number and issue
 * date: the same invoice, the first copy counts) from a number reused on another date (another
 * invoice, which cannot take the key the first one has: reported). Gives `undefined` for a
 * number's first copy, else the issue date of the first.
 */
export const invoiceCopies = () => {
  const given = new Map<string, string>()
  return (number: string, issueDate: string): string | undefined => {
    const first = given.get(number)
    if (first === undefined) given.set(detached(number), detached(issueDate))
    return first
  }
}
