/**
 * Per-field change history. `diffReceivable` compares two states of a receivable and yields the
 * `changes` map of a history entry; `applyChanges` and `revertChanges` move a state forwards or
 * backwards along it, so stored history can always be replayed.
 */
import { Option } from "effect"
import type { Timestamp } from "../../shared/domain/Values.ts"
import type { Changes, FieldValue, HistoryEntry, ReceivableState } from "./Resources.ts"
import { trackedFieldNames } from "./Resources.ts"

type TrackedField = keyof typeof trackedFieldNames

const trackedFields = Object.keys(trackedFieldNames) as ReadonlyArray<TrackedField>
const fieldByApiName = new Map<string, TrackedField>(trackedFields.map((field) => [trackedFieldNames[field], field]))

const metadataPrefix = "metadata."

/**
 * True when both hold the same keys with the same values. Most syncs find most metadata unchanged:
 * this checks without building the sorted key union.
 */
export const sameMetadata = (a: ReceivableState["metadata"], b: ReceivableState["metadata"]) => {
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every((key) => a[key] === b[key])
}

/**
 * The changes from `previous` to `next`, keyed by API field name (`metadata.<key>` for metadata);
 * empty when nothing changed. A metadata key that appears or disappears changes from or to null.
 * A status change always carries `portal_status`, even when only the mapping moved the status,
 * so that every status change shows the portal text behind it.
 */
export const diffReceivable = (previous: ReceivableState, next: ReceivableState): Changes => {
  const changes: Record<string, { from: FieldValue; to: FieldValue }> = {}
  for (const field of trackedFields) {
    if (previous[field] !== next[field]) {
      changes[trackedFieldNames[field]] = { from: previous[field], to: next[field] }
    }
  }
  if (changes.status !== undefined && changes.portal_status === undefined) {
    changes.portal_status = { from: previous.portalStatus, to: next.portalStatus }
  }
  if (sameMetadata(previous.metadata, next.metadata)) return changes
  const keys = new Set([...Object.keys(previous.metadata), ...Object.keys(next.metadata)])
  for (const key of [...keys].sort()) {
    const from = previous.metadata[key] ?? null
    const to = next.metadata[key] ?? null
    if (from !== to) changes[`${metadataPrefix}${key}`] = { from, to }
  }
  return changes
}

/** A history entry for the move from `previous` to `next`, or none when nothing changed. */
export const historyEntry = (
  previous: ReceivableState,
  next: ReceivableState,
  changedAt: Timestamp
): Option.Option<HistoryEntry> => {
  const changes = diffReceivable(previous, next)
  return Object.keys(changes).length === 0 ? Option.none() : Option.some({ changedAt, changes })
}

const setField = (state: ReceivableState, name: string, value: FieldValue): ReceivableState => {
  if (name.startsWith(metadataPrefix)) {
    const key = name.slice(metadataPrefix.length)
    const { [key]: _removed, ...rest } = state.metadata
    return { ...state, metadata: value === null ? rest : { ...rest, [key]: String(value) } }
  }
  const field = fieldByApiName.get(name)
  if (field === undefined) throw new Error(`history names an unknown field "${name}"`)
  return { ...state, [field]: value }
}

/** The state after `changes`: every changed field takes its `to` value. */
export const applyChanges = (state: ReceivableState, changes: Changes): ReceivableState =>
  Object.entries(changes).reduce((acc, [name, change]) => setField(acc, name, change.to), state)

/** The state before `changes`: every changed field takes back its `from` value. */
export const revertChanges = (state: ReceivableState, changes: Changes): ReceivableState =>
  Object.entries(changes).reduce((acc, [name, change]) => setField(acc, name, change.from), state)
