/**
 * Which of a debtor's coded responses about one invoice counts: the latest by its own issue time,
 * never by the order files arrive or are named in. Responses issued at the same instant (a
 * network that keeps dates only) are ordered by how far along the lifecycle their code is, then
 * by the response's own id, so the same inbox always gives the same status, whatever the order
 * of its files. Pure.
 */

export interface Response {
  /** When the debtor issued it, in milliseconds since the epoch. */
  readonly at: number
  /** How far along the lifecycle its code is: at equal times, the higher wins. */
  readonly rank: number
  /** The response's own id, the last tie-break. */
  readonly id: string
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
