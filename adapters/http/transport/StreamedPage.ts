/**
 * A page of receivables written as it is read: the list envelope's JSON in pieces, byte for byte
 * what `JSON.stringify(Wire.receivablePage(...))` writes for the whole page. The envelope puts
 * `has_more` after `data`, so the head and every item can leave before the page's end is known.
 * Each read's items are serialized and handed on before the next read is asked for, so the event
 * loop is free between reads and the socket's back-pressure reaches the database reads.
 */
import { Stream } from "effect"
import * as Wire from "../../../core/api/Wire.ts"
import type { PageInParts, PagePart } from "../../../core/receivables/services/PageParts.ts"

/** What the envelope says before its items: `object`, then `data` opened. */
export const head = '{"object":"list","data":['

/** What the envelope says after its items, once the page's end is known. */
export const tail = (page: Pick<PageInParts, "totalCount" | "nextVerifiedSince">, hasMore: boolean): string => {
  const envelope = Wire.receivablePage({
    object: "list",
    data: [],
    hasMore,
    totalCount: page.totalCount,
    nextVerifiedSince: page.nextVerifiedSince
  })
  return `],"has_more":${envelope.has_more},"total_count":${envelope.total_count},"next_verified_since":${JSON.stringify(envelope.next_verified_since)}}`
}

/** The page's JSON text in pieces: the head, one piece per read, the tail. */
export const pieces = (page: PageInParts): Stream.Stream<string> => {
  let first = true
  const piece = (part: PagePart): string => {
    if (part._tag === "End") return tail(page, part.hasMore)
    let text = ""
    for (const item of part.items) {
      text += first ? JSON.stringify(Wire.receivable(item)) : `,${JSON.stringify(Wire.receivable(item))}`
      first = false
    }
    return text
  }
  return Stream.concat(Stream.succeed(head), Stream.map(page.parts, piece))
}

/** The page's JSON as UTF-8 bytes, a piece at a time. */
export const bytes = (page: PageInParts): Stream.Stream<Uint8Array> =>
  Stream.map(
    Stream.filter(pieces(page), (text) => text.length > 0),
    (text) => Buffer.from(text, "utf8")
  )
