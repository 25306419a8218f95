/**
 * How large a receivable is on the wire, closely enough to keep a page of them under a size: its
 * own fields take a few hundred bytes (their text is bounded by `TextLimits`), so what varies is
 * its metadata and history, measured in UTF-8 bytes of the JSON they are written as. Used only for
 * pages that expand them.
 */
import type { Receivable } from "./Resources.ts"

/** Above any receivable's own fields as written, with their names. */
const fieldsBytes = 700

/** Above a history entry's own fields (`changed_at` and the names around `changes`). */
const entryBytes = 80

/** Any character but printable ASCII: JSON escapes the controls, so its text is mostly without. */
const notPrintableAscii = /[^ -~]/

/** The bytes of `text` in UTF-8: what it costs on the wire, not its length in UTF-16. */
export const utf8Bytes = (text: string): number => {
  // Metadata is mostly ASCII: one native scan instead of a loop in JavaScript halves the cost of
  // measuring a page's 3 MB read (bench/abuse/heavy-pages.ts), time the event loop serves no one.
  if (!notPrintableAscii.test(text)) return text.length
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0x80) bytes += 1
    else if (unit < 0x800) bytes += 2
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      // A surrogate pair: one code point of four bytes.
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

export const receivableBytes = (receivable: Receivable): number => {
  let bytes = fieldsBytes
  if (receivable.metadata !== undefined) bytes += utf8Bytes(JSON.stringify(receivable.metadata))
  for (const entry of receivable.history ?? []) bytes += entryBytes + utf8Bytes(JSON.stringify(entry.changes))
  return bytes
}

/** The largest answer a page of receivables may make, unless the service says otherwise: 8 MiB. */
export const defaultMaxAnswerBytes = 8 * 1024 * 1024

/** Receivables read at a time for a page that expands metadata or history. */
export const expandedChunk = 50
