/**
 * The plan of one vendor-debtor pair's sync, as pure data: from the receivables the pair has and
 * the documents its portal returned, which receivables are new, which changed (with their history
 * entries), which are unchanged, which documents are quarantined (and why), and the events of
 * spec section 6. Applying a plan is the store's job, in one transaction.
 */
import { DateTime, Option, Schema, SchemaIssue } from "effect"
import type { DebtorId, ReceivableId, VendorId } from "../../shared/domain/Ids.ts"
import { oversizeFields, oversizeKey, shownKey } from "../../shared/domain/TextLimits.ts"
import { type EventType, receivableSnapshot } from "./Events.ts"
import { historyEntry, sameMetadata } from "./History.ts"
import type { HistoryEntry, ReceivableState } from "./Resources.ts"
import { ReceivableState as ReceivableStateSchema, trackedFieldNames } from "./Resources.ts"
import { normalizeStatus, type StatusMapping } from "./Status.ts"

/** A receivable as a portal reports it, before any validation. */
export interface FetchedDocument {
  /** The portal's identity of the document within the pair; stable across fetches. */
  readonly documentKey: string
  readonly vendorReceivableId: string | null
  readonly amountCents: number
  readonly currency: string
  readonly receivableDate: string
  readonly dueDate: string | null
  readonly portalStatus: string
  readonly poNumber: string | null
  readonly metadata: Readonly<Record<string, string>>
  /**
   * Why the connector could not read this document (no key, an undecodable row, a value it could
   * not take in): such a document is quarantined with these reasons and changes nothing, so that
   * no row a portal sent is dropped without a word. Absent or empty for a document read whole.
   */
  readonly unreadable?: ReadonlyArray<string> | undefined
}

/** A receivable of the pair: stored, or about to be. */
export interface PairReceivable {
  readonly id: ReceivableId
  readonly documentKey: string
  readonly state: ReceivableState
  /** When it was first detected; its events carry it. */
  readonly detectedAt: DateTime.Utc
}

export interface PairRefs {
  readonly vendor: { readonly id: VendorId; readonly name: string }
  readonly debtor: { readonly id: DebtorId; readonly name: string }
}

/**
 * An event of spec section 6 as a sync plans it. Its id and its place in the feed are the store's
 * to give: they follow from the order in which syncs commit, which no plan knows.
 */
export interface PlannedEvent {
  readonly type: EventType
  readonly receivableId: ReceivableId
  readonly createdAt: DateTime.Utc
  readonly data: Readonly<Record<string, unknown>>
}

export interface Quarantined {
  readonly documentKey: string
  readonly reasons: ReadonlyArray<string>
}

export interface PairSyncPlan {
  readonly inserts: ReadonlyArray<PairReceivable>
  readonly updates: ReadonlyArray<PairReceivable & { readonly history: HistoryEntry }>
  readonly unchanged: number
  readonly quarantined: ReadonlyArray<Quarantined>
  readonly events: ReadonlyArray<PlannedEvent>
  readonly fetched: number
}

export interface PlanContext {
  readonly refs: PairRefs
  readonly now: DateTime.Utc
  readonly statusMapping?: StatusMapping | undefined
  /** Fresh identifiers; the caller supplies the randomness. */
  readonly newReceivableId: () => ReceivableId
  /**
   * Document keys already planned in this sync, when a sync is planned a chunk at a time: a key
   * seen in an earlier chunk is a duplicate too. Planning adds the keys it sees.
   */
  readonly seen?: Set<string> | undefined
}

const decodeState = Schema.decodeUnknownExit(ReceivableStateSchema, { errors: "all" })
const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

// Every tracked field a document carries as such; its status is derived from its text.
const documentFields = (Object.keys(trackedFieldNames) as Array<keyof typeof trackedFieldNames>).filter(
  (field) => field !== "status"
)

const isRecord = (value: unknown): value is Readonly<Record<string, string>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

// Characters no stored text can keep: the NUL character, which databases' text and JSON types
// refuse (PostgreSQL's among them), and halves of UTF-16 surrogate pairs standing alone, which
// are not Unicode (written, they come back as U+FFFD or are refused). A document holding one is
// quarantined: written, it would fail its pair's every sync.
const unstorable = /\0|\p{Cs}/u
const unstorableEverywhere = new RegExp(unstorable.source, "gu")

/** True when the text can be stored and read back as it is. */
export const isStorableText = (text: string): boolean => !unstorable.test(text)

const unstorableReason = "holds the NUL character or half a surrogate pair, which cannot be stored"

// Where a document's text cannot be stored; found before validation, so that no message repeats
// the character.
const unstorableFields = (document: FetchedDocument): ReadonlyArray<string> => {
  const reasons: Array<string> = []
  for (const field of documentFields) {
    const value: unknown = document[field]
    if (typeof value === "string" && !isStorableText(value)) reasons.push(`${field}: ${unstorableReason}`)
  }
  if (isRecord(document.metadata)) {
    for (const [key, value] of Object.entries(document.metadata)) {
      if (!isStorableText(key)) reasons.push(`metadata: a key ${unstorableReason}`)
      else if (typeof value === "string" && !isStorableText(value)) reasons.push(`metadata.${key}: ${unstorableReason}`)
    }
  }
  return reasons
}

/** Of a refused value, what a reason shows: enough to find it in the portal, never a whole field. */
const shownValueLength = 40

/**
 * The value at `path` of `input`, as the reason for refusing it shows it (`got 12.5`), so that
 * whoever reads the quarantine can tell what the portal sent; cut at `shownValueLength`. Sizes
 * were checked before (`oversizeFields`), so no value read here is large.
 */
const gotValue = (input: unknown, path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>) => {
  let value = input
  for (const segment of path) {
    if (value === null || typeof value !== "object") return ""
    value = (value as Record<PropertyKey, unknown>)[typeof segment === "object" ? segment.key : segment]
  }
  if (value === undefined || (value !== null && typeof value === "object")) return ""
  const text = JSON.stringify(value)
  return `, got ${text.length > shownValueLength ? `${text.slice(0, shownValueLength)}…` : text}`
}

/** The document as a receivable's state, or the reasons it cannot be one. */
export const validateDocument = (
  document: FetchedDocument,
  statusMapping?: StatusMapping
):
  | { readonly _tag: "Valid"; readonly state: ReceivableState }
  | { readonly _tag: "Invalid"; readonly reasons: ReadonlyArray<string> } => {
  // Sizes first: a value over its limit is neither scanned nor echoed by a later message.
  const oversize = oversizeFields(document)
  if (oversize.length > 0) return { _tag: "Invalid", reasons: oversize }
  const unstorableReasons = unstorableFields(document)
  if (unstorableReasons.length > 0) return { _tag: "Invalid", reasons: unstorableReasons }
  const input = {
    vendorReceivableId: document.vendorReceivableId,
    amountCents: document.amountCents,
    currency: document.currency,
    receivableDate: document.receivableDate,
    dueDate: document.dueDate,
    status: normalizeStatus(String(document.portalStatus), statusMapping),
    portalStatus: document.portalStatus,
    poNumber: document.poNumber,
    metadata: document.metadata
  }
  const exit = decodeState(input)
  if (exit._tag === "Success") return { _tag: "Valid", state: exit.value }
  const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  const issues =
    error !== undefined && error._tag === "Fail" && Schema.isSchemaError(error.error)
      ? formatIssues(error.error.issue).issues.map(
          (issue) =>
            `${(issue.path ?? []).map(String).join(".") || "document"}: ${issue.message}${gotValue(input, issue.path ?? [])}`
        )
      : ["the document could not be read"]
  return { _tag: "Invalid", reasons: issues }
}

/**
 * True when a document says exactly what a stored state says, down to the status its text maps
 * to. Such a document is unchanged without being validated again, since the state was validated
 * when it was stored: most documents of a resync are such, and validating them was the larger
 * part of planning it.
 */
const restates = (state: ReceivableState, document: FetchedDocument, statusMapping: StatusMapping | undefined) =>
  documentFields.every((field) => document[field] === state[field]) &&
  isRecord(document.metadata) &&
  sameMetadata(state.metadata, document.metadata) &&
  normalizeStatus(state.portalStatus, statusMapping) === state.status

const statusChangedData = (
  id: ReceivableId,
  refs: PairRefs,
  previous: ReceivableState,
  next: ReceivableState,
  changedAt: string
) => ({
  receivable_id: id,
  vendor: refs.vendor,
  debtor: refs.debtor,
  previous_status: previous.status,
  new_status: next.status,
  previous_portal_status: previous.portalStatus,
  new_portal_status: next.portalStatus,
  changed_at: changedAt
})

/**
 * Plans a pair's sync. A document matches a receivable by its document key; a key seen twice in
 * one answer is quarantined after its first occurrence; a document that fails validation is
 * quarantined and its receivable keeps its previous state. A document that says exactly what its
 * stored receivable says is unchanged without being validated again (the stored state was
 * validated when it was written). Receivables the portal no longer returns are kept as they are
 * (the API has no deletions).
 */
export const planPairSync = (
  current: ReadonlyArray<PairReceivable>,
  fetched: ReadonlyArray<FetchedDocument>,
  context: PlanContext
): PairSyncPlan => {
  const byKey = new Map(current.map((receivable) => [receivable.documentKey, receivable]))
  const seen = context.seen ?? new Set<string>()
  const inserts: Array<PairReceivable> = []
  const updates: Array<PairReceivable & { history: HistoryEntry }> = []
  const quarantined: Array<Quarantined> = []
  const events: Array<PlannedEvent> = []
  let unchanged = 0
  // Every change of this sync happens at the same moment.
  const nowText = DateTime.formatIso(context.now)
  const event = (type: EventType, receivableId: ReceivableId, data: Record<string, unknown>) =>
    events.push({ type, receivableId, createdAt: context.now, data })
  const snapshot = (receivable: PairReceivable) =>
    receivableSnapshot(receivable, context.refs, receivable.detectedAt, context.now)

  for (const document of fetched) {
    if (document.unreadable !== undefined && document.unreadable.length > 0) {
      quarantined.push({ documentKey: shownKey(document.documentKey), reasons: document.unreadable })
      continue
    }
    const keyTooLong = oversizeKey(document.documentKey)
    if (keyTooLong !== undefined) {
      quarantined.push({ documentKey: shownKey(document.documentKey), reasons: [keyTooLong] })
      continue
    }
    if (!isStorableText(document.documentKey)) {
      quarantined.push({
        documentKey: document.documentKey.replace(unstorableEverywhere, "\uFFFD"),
        reasons: [`documentKey: ${unstorableReason} (shown as U+FFFD)`]
      })
      continue
    }
    if (seen.has(document.documentKey)) {
      quarantined.push({ documentKey: document.documentKey, reasons: ["the portal returned this document twice"] })
      continue
    }
    seen.add(document.documentKey)
    const existing = byKey.get(document.documentKey)
    if (existing !== undefined && restates(existing.state, document, context.statusMapping)) {
      unchanged += 1
      continue
    }
    const validated = validateDocument(document, context.statusMapping)
    if (validated._tag === "Invalid") {
      quarantined.push({ documentKey: document.documentKey, reasons: validated.reasons })
      continue
    }
    if (existing === undefined) {
      const created = {
        id: context.newReceivableId(),
        documentKey: document.documentKey,
        state: validated.state,
        detectedAt: context.now
      }
      inserts.push(created)
      event("receivable.created", created.id, { receivable: snapshot(created) })
      continue
    }
    const entry = historyEntry(existing.state, validated.state, context.now)
    if (Option.isNone(entry)) {
      unchanged += 1
      continue
    }
    const updated = { ...existing, state: validated.state }
    updates.push({ ...updated, history: entry.value })
    event("receivable.updated", existing.id, { receivable: snapshot(updated), changes: entry.value.changes })
    if (existing.state.status !== validated.state.status) {
      event(
        "receivable.status_changed",
        existing.id,
        statusChangedData(existing.id, context.refs, existing.state, validated.state, nowText)
      )
    }
  }
  return { inserts, updates, unchanged, quarantined, events, fetched: fetched.length }
}
