/**
 * A page written in pieces is the page written whole: for any items, however the reads split
 * them and whatever the size of a piece, the pieces joined are byte for byte `JSON.stringify` of
 * the contract's list envelope, and no piece holds more than its size and one item.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import fc from "fast-check"
import * as StreamedPage from "../../../../adapters/http/transport/StreamedPage.ts"
import * as Wire from "../../../../core/api/Wire.ts"
import type { PagePart } from "../../../../core/receivables/services/PageParts.ts"
import { arbitraryInstant, arbitraryReceivable } from "../../../support/arbitraries.ts"

/** Items split into reads of the given sizes (an empty read among them), as the parts of a page. */
const arbitraryReads = fc.array(fc.array(arbitraryReceivable, { maxLength: 4 }), { maxLength: 5 })

describe("StreamedPage", () => {
  it.effect("its pieces joined are the whole page's JSON, however the reads split the items", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          arbitraryReads,
          fc.boolean(),
          fc.nat(),
          arbitraryInstant,
          fc.integer({ min: 1, max: 4_000 }),
          async (reads, hasMore, totalCount, nextVerifiedSince, size) => {
            const parts: Array<PagePart> = [
              ...reads.map((items) => ({ _tag: "Items" as const, items })),
              { _tag: "End", hasMore }
            ]
            const page = { totalCount, nextVerifiedSince, complete: false, parts: Stream.fromIterable(parts) }
            const bytes = await Effect.runPromise(Stream.runCollect(StreamedPage.bytes(page, Effect.sync, size)))
            const whole = JSON.stringify(
              Wire.receivablePage({ object: "list", data: reads.flat(), hasMore, totalCount, nextVerifiedSince })
            )
            assert.strictEqual(Buffer.concat(bytes).toString("utf8"), whole)
            const largestItem = Math.max(
              0,
              ...reads.flat().map((item) => Buffer.byteLength(JSON.stringify(Wire.receivable(item))) + 1)
            )
            // A UTF-16 unit is at most 3 bytes; the head and the tail are pieces of their own, under 200.
            for (const piece of bytes) assert.isAtMost(piece.length, Math.max(200, 3 * size + largestItem))
          }
        ),
        { numRuns: 200 }
      )
    )
  )
})
