/**
 * Which of a debtor's coded responses about one invoice counts: the latest by its own issue time,
 * never by the order files arrive or are named in. Responses issued at the same instant (a
 * network that keeps dates only) are ordered by how far along the lifecycle their code is, then
 * by the response's own id (as a number, `idNumber`), so the same inbox always gives the same
 * status, whatever the order of its files. Pure.
 */

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

/** A response's id as a number (32-bit FNV-1a of its UTF-16 code units): the same id, the same number. */
export const idNumber = (id: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193)
  return hash >>> 0
}

/** Whether `candidate` counts over `known`. */
export const isLater = (candidate: Response, known: Response): boolean =>
  candidate.at !== known.at
    ? candidate.at > known.at
    : candidate.rank !== known.rank
      ? candidate.rank > known.rank
      : candidate.id > known.id

/** The one that counts of two, either possibly absent. */
export const latestOf = <R extends Response>(a: R | undefined, b: R | undefined): R | undefined =>
  a === undefined ? b : b === undefined ? a : isLater(b, a) ? b : a

/**
 * An invoice's key in a connector's index of responses: its number, and its issue date when the
 * response gives it (a number can be reused from one year to the next). Kept keys are
 * `detached`: one flat string, not the pieces it was joined from.
 */
export const referenceKey = (number: string, issueDate: string | undefined) => `${number}\u0000${issueDate ?? ""}`
