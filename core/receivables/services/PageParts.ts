/**
 * An expanded page of receivables read a chunk at a time (`AnswerSize.expandedChunk`), as a
 * stream of its parts: each read's items, then whether more items follow. The next chunk is read
 * only when the stream is pulled, so whoever writes the page sets the pace (a client that reads
 * slowly holds one chunk, not the page). The page stops at `limit` items or before its answer
 * would pass `maxAnswerBytes`, and always holds one item while items remain. Reads after the first
 * ask the store for the chunk only (`continuePage`): the counts and the watermark are the first
 * read's. Depends on the `ReceivableStore` port only.
 */
import { type DateTime, Effect, Option, Stream } from "effect"
import type { OrgId, ReceivableId } from "../../shared/domain/Ids.ts"
import * as AnswerSize from "../domain/AnswerSize.ts"
import type { Receivable } from "../domain/Resources.ts"
import type {
  ReceivableStore,
  ReceivablesChunk,
  ReceivablesPageRequest,
  StartingAfterNotFound
} from "../ports/ReceivableStore.ts"

export type PagePart =
  | { readonly _tag: "Items"; readonly items: ReadonlyArray<Receivable> }
  | { readonly _tag: "End"; readonly hasMore: boolean }

export interface PageInParts {
  /** The first read's counts and watermark: the earliest, so nothing committed after any read is missed. */
  readonly totalCount: number
  readonly nextVerifiedSince: DateTime.Utc
  /** Whether the first read ended the page: `parts` then reads nothing more. */
  readonly complete: boolean
  /** The page's items read by read (the first read's already done), then its `End`. */
  readonly parts: Stream.Stream<PagePart>
}

/** Where a page stands after a read: what it holds so far, and what to read next. */
interface Progress {
  readonly taken: number
  readonly bytes: number
}

interface NextRead extends Progress {
  readonly asked: number
  readonly after: ReceivableId
}

/**
 * Measuring an item serializes its metadata and history: a read of 50 items of 60 KB is 3 MB of
 * JSON. The fiber yields (to the event loop's I/O: effect's scheduler resumes it from
 * `setImmediate`) each time this much has been measured, so that other requests are served meanwhile.
 */
const measuredPerTurn = 256 * 1024

/** The items of one read the page takes, and either its end or the read after it. */
const takeFrom = Effect.fnUntraced(function* (
  chunk: ReceivablesChunk,
  read: { readonly asked: number; readonly offset: number },
  progress: Progress,
  limit: number,
  maxAnswerBytes: number
) {
  const items: Array<Receivable> = []
  let bytes = progress.bytes
  let measured = 0
  const end = (hasMore: boolean) => ({
    parts: [...(items.length > 0 ? [{ _tag: "Items" as const, items }] : []), { _tag: "End" as const, hasMore }],
    next: Option.none<NextRead>()
  })
  for (const item of chunk.items) {
    if (measured >= measuredPerTurn) {
      yield* Effect.yieldNow
      measured = 0
    }
    const size = AnswerSize.receivableBytes(item)
    measured += size
    // At least one item, however large: a page is never empty while items remain.
    if (progress.taken + items.length > 0 && bytes + size > maxAnswerBytes) return end(true)
    items.push(item)
    bytes += size
  }
  const taken = progress.taken + items.length
  if (chunk.items.length < read.asked || taken >= limit) return end(chunk.followingCount > read.offset + items.length)
  return {
    parts: [{ _tag: "Items" as const, items }],
    next: Option.some<NextRead>({
      taken,
      bytes,
      asked: Math.min(AnswerSize.expandedChunk, limit - taken),
      after: items[items.length - 1]!.id
    })
  }
})

/** The page `request` asks for, read in parts; fails only on the first read. */
export const readInParts = (
  store: ReceivableStore["Service"],
  org: OrgId,
  request: ReceivablesPageRequest,
  maxAnswerBytes: number
): Effect.Effect<PageInParts, StartingAfterNotFound> => {
  const limit = request.window.limit
  const asked = Math.min(AnswerSize.expandedChunk, limit)
  return Effect.flatMap(
    store.listReceivables(org, { ...request, window: { offset: request.window.offset, limit: asked } }),
    (first) =>
      Effect.map(
        takeFrom(first, { asked, offset: request.window.offset }, { taken: 0, bytes: 0 }, limit, maxAnswerBytes),
        (start): PageInParts => {
          const readOn = (next: NextRead) =>
            store
              .continuePage(org, { ...request, window: { offset: 0, limit: next.asked }, startingAfter: next.after })
              .pipe(
                // The item continued after was read a moment ago: it cannot be missing.
                Effect.orDie,
                Effect.flatMap((chunk) =>
                  takeFrom(chunk, { asked: next.asked, offset: 0 }, next, limit, maxAnswerBytes)
                ),
                Effect.map(({ parts, next: after }) => [parts, after] as const)
              )
          return {
            totalCount: first.totalCount,
            nextVerifiedSince: first.nextVerifiedSince,
            complete: Option.isNone(start.next),
            parts: Stream.concat(
              Stream.fromIterable(start.parts),
              Option.match(start.next, { onNone: () => Stream.empty, onSome: (next) => Stream.paginate(next, readOn) })
            )
          }
        }
      )
  )
}

/** The whole page: its items and whether more follow, once every part is read. */
export const collect = (page: PageInParts): Effect.Effect<{ items: ReadonlyArray<Receivable>; hasMore: boolean }> =>
  Stream.runFold(
    page.parts,
    (): { items: Array<Receivable>; hasMore: boolean } => ({ items: [], hasMore: false }),
    (whole, part) => {
      if (part._tag === "Items") whole.items.push(...part.items)
      else whole.hasMore = part.hasMore
      return whole
    }
  )
