/**
 * `EventFeed` in memory, over the memory world's `ReceivablesState`: the events the memory `PairStore`'s
 * sessions numbered in their organizations' feeds as they finished, served in sequence order and
 * held to the feed's contract (`test/contracts/EventFeed.contract.ts`). Pruning removes events
 * by the time their sync finished and remembers the newest sequence removed, as the table does.
 * Depends on `effect` and core only.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import type { OrgId } from "../../shared/domain/Ids.ts"
import { idKey } from "../../shared/memory/Keys.ts"
import type { StoredEvent } from "../domain/Events.ts"
import {
  EventCursorAhead,
  EventCursorExpired,
  EventFeed,
  type EventPage,
  type EventsAfter
} from "../ports/EventFeed.ts"
import { type EventRow, feedOf, ReceivablesState } from "./ReceivablesState.ts"

const plain = ({ committedAt: _, ...event }: EventRow): StoredEvent => event

const make = Effect.gen(function* () {
  const tables = yield* ReceivablesState

  const after = (org: OrgId, request: EventsAfter) =>
    Effect.suspend((): Effect.Effect<EventPage, EventCursorExpired | EventCursorAhead> => {
      const feed = feedOf(tables, org)
      const after = request.after ?? feed.prunedThrough
      if (after < feed.prunedThrough) {
        return Effect.fail(new EventCursorExpired({ after, reason: "retention", through: feed.prunedThrough }))
      }
      if (after > feed.latestSequence) {
        return Effect.fail(new EventCursorAhead({ after, latestSequence: feed.latestSequence }))
      }
      const matching = feed.events.filter(
        (event) => event.sequence > after && (request.types?.includes(event.type) ?? true)
      )
      return Effect.succeed({
        events: matching.slice(0, request.limit).map(plain),
        hasMore: matching.length > request.limit,
        latestSequence: feed.latestSequence
      })
    })

  const find = (org: OrgId, place: { readonly batch: bigint; readonly ordinal: number }) =>
    Effect.sync(() =>
      Option.map(
        Option.fromNullishOr(
          tables.feeds
            .get(idKey(org))
            ?.events.find((event) => event.batch === place.batch && event.ordinal === place.ordinal)
        ),
        plain
      )
    )

  const prune = (before: DateTime.Utc) =>
    Effect.sync(() => {
      let removed = 0
      for (const feed of tables.feeds.values()) {
        const kept = feed.events.filter((event) => !DateTime.isLessThan(event.committedAt, before))
        for (const event of feed.events) {
          if (DateTime.isLessThan(event.committedAt, before)) {
            feed.prunedThrough = Math.max(feed.prunedThrough, event.sequence)
            removed += 1
          }
        }
        feed.events.splice(0, feed.events.length, ...kept)
      }
      return removed
    })

  return EventFeed.of({ after, find, prune })
})

export const layerMemory: Layer.Layer<EventFeed, never, ReceivablesState> = Layer.effect(EventFeed, make)
