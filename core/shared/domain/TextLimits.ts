/**
 * The documented maximum size of every text a portal document brings in, and the check that
 * names the first field over its limit. A document over a limit is quarantined rather than
 * stored: an oversize key cannot be indexed (it would fail its pair's every sync) and an
 * oversize value would be served whole to every client. Pure: depends on nothing.
 */

/** Maximum lengths, in UTF-16 code units (JavaScript's `length`), of a document's texts. */
export const textLimits = {
  /** The portal's identity of a document; indexed, so well under PostgreSQL's 2,704-byte index row. */
  documentKey: 256,
  vendorReceivableId: 256,
  poNumber: 256,
  portalStatus: 256,
  currency: 16,
  receivableDate: 32,
  dueDate: 32,
  metadataKey: 128,
  metadataValue: 4_096,
  /** Keys in one document's metadata. */
  metadataEntries: 200,
  /** All metadata keys and values together. */
  metadataTotal: 65_536
} as const

type LimitedField = "vendorReceivableId" | "poNumber" | "portalStatus" | "currency" | "receivableDate" | "dueDate"

const limitedFields: ReadonlyArray<LimitedField> = [
  "vendorReceivableId",
  "poNumber",
  "portalStatus",
  "currency",
  "receivableDate",
  "dueDate"
]

const over = (what: string, length: number, limit: number) =>
  `${what}: ${length} characters, over the limit of ${limit}`

/** Why a document key is over its limit, if it is. */
export const oversizeKey = (documentKey: string): string | undefined =>
  documentKey.length > textLimits.documentKey
    ? over("documentKey", documentKey.length, textLimits.documentKey)
    : undefined

/** The shape this check reads: a document's texts, whatever their types turned out to be. */
export interface LimitedDocument {
  readonly documentKey: unknown
  readonly vendorReceivableId: unknown
  readonly poNumber: unknown
  readonly portalStatus: unknown
  readonly currency: unknown
  readonly receivableDate: unknown
  readonly dueDate: unknown
  readonly metadata: unknown
}

/**
 * Why the document's texts are over their limits, one reason per field (empty when none is).
 * Reasons name the field and the sizes, never the value, so a quarantine record stays small.
 * Reads each text's length only: constant time per field, whatever its size.
 */
export const oversizeFields = (document: LimitedDocument): ReadonlyArray<string> => {
  const reasons: Array<string> = []
  const keyReason = typeof document.documentKey === "string" ? oversizeKey(document.documentKey) : undefined
  if (keyReason !== undefined) reasons.push(keyReason)
  for (const field of limitedFields) {
    const value = document[field]
    if (typeof value === "string" && value.length > textLimits[field]) {
      reasons.push(over(field, value.length, textLimits[field]))
    }
  }
  const metadata = document.metadata
  if (typeof metadata !== "object" || metadata === null) return reasons
  let entries = 0
  let total = 0
  for (const [key, value] of Object.entries(metadata)) {
    entries += 1
    total += key.length + (typeof value === "string" ? value.length : 0)
    if (key.length > textLimits.metadataKey) {
      reasons.push(over(`metadata: the key "${key.slice(0, 32)}…"`, key.length, textLimits.metadataKey))
    } else if (typeof value === "string" && value.length > textLimits.metadataValue) {
      reasons.push(over(`metadata.${key}`, value.length, textLimits.metadataValue))
    }
  }
  if (entries > textLimits.metadataEntries) {
    reasons.push(`metadata: ${entries} keys, over the limit of ${textLimits.metadataEntries}`)
  }
  if (total > textLimits.metadataTotal)
    reasons.push(over("metadata (keys and values together)", total, textLimits.metadataTotal))
  return reasons
}

/** A document key as a quarantine record shows it: cut to its limit, so a record stays small. */
export const shownKey = (documentKey: string): string =>
  documentKey.length > textLimits.documentKey ? `${documentKey.slice(0, textLimits.documentKey)}…` : documentKey
