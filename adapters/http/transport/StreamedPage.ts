/**
 * A page of receivables written as it is read: the list envelope's JSON in pieces, byte for byte
 * what `JSON.stringify(Wire.receivablePage(...))` writes for the whole page. The envelope puts
 * `has_more` after `data`, so the head and every item can leave before the page's end is known.
 * A read's items (50 of up to 64 KiB of metadata each: 3 MB) are not serialized in one go: a
 * piece stops once it holds `pieceBytes`, and each piece is made in a turn of its own
 * (`HeavyTurns`), so that the event loop serves other requests between pieces and the socket's
 * back-pressure reaches the database reads.
 */
import { type Effect, Option, Stream } from "effect"
import * as Wire from "../../../core/api/Wire.ts"
import type { Receivable } from "../../../core/receivables/domain/Resources.ts"
import type { PageInParts } from "../../../core/receivables/services/PageParts.ts"

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

/**
 * Where a piece stops: past 256 KiB of text (UTF-16 units, about its bytes for the ASCII-heavy
 * JSON), a millisecond or two of serializing. One item is never split, so a piece holds at most
 * this plus one item (the largest a receivable may be).
 */
export const pieceBytes = 256 * 1024

/** Runs the making of one piece in a turn of its own; `Effect.sync` where nothing else is served. */
export type Turn = <A>(make: () => A) => Effect.Effect<A>

/** The page's JSON as UTF-8 bytes, a piece of at most about `size` at a time, each made in a `turn`. */
export const bytes = (page: PageInParts, turn: Turn, size: number = pieceBytes): Stream.Stream<Uint8Array> => {
  let first = true
  /** The items from `from` on, serialized until the piece is full; where the next piece starts. */
  const pieceFrom = (items: ReadonlyArray<Receivable>, from: number) => {
    let text = ""
    let at = from
    while (at < items.length && (at === from || text.length < size)) {
      const json = JSON.stringify(Wire.receivable(items[at]!))
      text += first ? json : `,${json}`
      first = false
      at++
    }
    return [[Buffer.from(text, "utf8")], at < items.length ? Option.some(at) : Option.none()] as const
  }
  return Stream.concat(
    Stream.succeed(Buffer.from(head, "utf8")),
    Stream.flatMap(page.parts, (part) =>
      part._tag === "End"
        ? Stream.succeed(Buffer.from(tail(page, part.hasMore), "utf8"))
        : part.items.length === 0
          ? Stream.empty
          : Stream.paginate(0, (from: number) => turn(() => pieceFrom(part.items, from)))
    )
  )
}
