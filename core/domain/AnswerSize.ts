/**
 * How large a receivable is on the wire, closely enough to keep a page of them under a size: its
 * own fields take a few hundred bytes, so what varies is its metadata and history, measured as the
 * JSON they are written as. Used only for pages that expand them.
 */
import type { Receivable } from "./Resources.ts"

/** Above any receivable's own fields as written, with their names. */
const fieldsBytes = 700

/** Above a history entry's own fields (`changed_at` and the names around `changes`). */
const entryBytes = 80

export const receivableBytes = (receivable: Receivable): number => {
  let bytes = fieldsBytes
  if (receivable.metadata !== undefined) bytes += JSON.stringify(receivable.metadata).length
  for (const entry of receivable.history ?? []) bytes += entryBytes + JSON.stringify(entry.changes).length
  return bytes
}

/** The largest answer a page of receivables may make, unless the service says otherwise: 8 MiB. */
export const defaultMaxAnswerBytes = 8 * 1024 * 1024

/** Receivables read at a time for a page that expands metadata or history. */
export const expandedChunk = 50
