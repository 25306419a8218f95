/**
 * The six normalized receivable statuses and the mapping from a portal's free status text to one
 * of them. `portal_status` keeps the original text; `status` is what clients filter and branch on.
 * Pure functions only: depends on `effect` and nothing else.
 */
import { Schema } from "effect"

export const statuses = ["PENDING", "APPROVED", "PAID", "SOLD", "DISPUTED", "ACKNOWLEDGED"] as const

export const Status = Schema.Literals(statuses).annotate({ description: "Normalized receivable status" })
export type Status = typeof Status.Type

/**
 * The portal texts each status stands for: the spec's table (section 3), its mapping examples,
 * the wording of its "Meaning" column, and common spelling variants. Written in canonical form.
 */
export const defaultStatusTable: Readonly<Record<Exclude<Status, "ACKNOWLEDGED">, ReadonlyArray<string>>> = {
  PENDING: [
    "DRAFT",
    "SUBMITTED",
    "IN PROCESS",
    "PENDING APPROVAL",
    "OPEN",
    "UNPAID",
    "OVERDUE",
    "UNDER REVIEW",
    "IN REVIEW",
    "AWAITING APPROVAL"
  ],
  APPROVED: [
    "APPROVED",
    "APPROVED FOR PAYMENT",
    "READY FOR PAYMENT",
    "PAYMENT IN PROCESS",
    "SCHEDULED FOR PAYMENT",
    "PAYMENT SCHEDULED"
  ],
  PAID: ["PAID", "PAID IN FULL", "SETTLED", "CLOSED", "COMPLETED", "MARKED PAID", "RECONCILED", "FULLY PAID"],
  SOLD: ["SOLD", "FACTORED", "ASSIGNED"],
  DISPUTED: ["REJECTED", "CANCELED", "CANCELLED", "VOIDED", "VOID", "ON HOLD", "DISPUTED", "IN DISPUTE"]
}

/**
 * The canonical form used for every comparison: trimmed, `_` and `-` read as spaces, runs of
 * white space collapsed to one space, upper case.
 */
export const canonicalStatusText = (text: string): string =>
  text.replace(/[_-]/g, " ").replace(/\s+/g, " ").trim().toUpperCase()

/** A connector's own mapping, keyed by canonical portal text. Build it with `makeStatusMapping`. */
export type StatusMapping = ReadonlyMap<string, Status>

/** Compiles a connector's mapping once, so that its keys match in any casing or spacing. */
export const makeStatusMapping = (entries: Readonly<Record<string, Status>>): StatusMapping =>
  new Map(Object.entries(entries).map(([text, status]) => [canonicalStatusText(text), status]))

const exactTable: StatusMapping = new Map<string, Status>([
  ...statuses.map((status) => [status, status] as const),
  ...Object.entries(defaultStatusTable).flatMap(([status, texts]) =>
    texts.map((text) => [text, status as Status] as const)
  )
])

// Words that change the meaning of whatever follows or precedes them ("NOT PAID", "PARTIALLY
// PAID", "NO LONGER APPROVED"): when one is present, no keyword rule is trusted.
const qualifiers = new Set(["NOT", "NO", "NON", "PARTIAL", "PARTIALLY", "UN", "PART", "EXCEPT", "PRE"])

const phrases = [...exactTable.entries()]
  .map(([text, status]) => ({ words: text.split(" "), status }))
  .sort((a, b) => b.words.length - a.words.length)

const phraseAt = (words: ReadonlyArray<string>, start: number) =>
  phrases.find((phrase) => phrase.words.every((word, offset) => words[start + offset] === word))

/**
 * The conservative rules for a text that no table knows: scan its words left to right, taking the
 * longest known phrase at each position ("PAYMENT IN PROCESS" before "IN PROCESS"). The text maps
 * to a status only when every phrase found agrees and no qualifier word is present.
 */
const statusByPhrases = (canonical: string): Status | undefined => {
  const words = canonical.split(/[^A-Z0-9]+/).filter((word) => word.length > 0)
  if (words.some((word) => qualifiers.has(word))) return undefined
  const found = new Set<Status>()
  for (let index = 0; index < words.length; ) {
    const phrase = phraseAt(words, index)
    if (phrase === undefined) {
      index += 1
    } else {
      found.add(phrase.status)
      index += phrase.words.length
    }
  }
  return found.size === 1 ? [...found][0] : undefined
}

/**
 * Maps a portal's status text to one of the six statuses: the connector's own mapping first, then
 * the default table, then the conservative phrase rules; anything else is `ACKNOWLEDGED`.
 */
export const normalizeStatus = (portalStatus: string, connectorMapping?: StatusMapping): Status => {
  const canonical = canonicalStatusText(portalStatus)
  return connectorMapping?.get(canonical) ?? exactTable.get(canonical) ?? statusByPhrases(canonical) ?? "ACKNOWLEDGED"
}
