/**
 * What the events feed needs from storage: an organization's events in sequence order after a
 * position, one event by its place, and the removal of events past their retention. Sequences are
 * given by the pair sessions that write the events (`PairSession`), in the order they commit.
 */
import { Context, type DateTime, type Effect, type Option, Schema } from "effect"
import type { OrgId } from "../../shared/domain/Ids.ts"
import type { EventType, StoredEvent } from "../domain/Events.ts"

export interface EventsAfter {
  /**
   * Events with a greater sequence. Absent: from the oldest event kept, whatever retention has
   * removed (a reader starting out, or noting \`latestSequence\`); a position, 0 included, older
   * than what retention kept, or inside a restored database's gap, is \`EventCursorExpired\`.
   */
  readonly after?: number | undefined
  /** Only these types; every type when absent. */
  readonly types?: ReadonlyArray<EventType> | undefined
  readonly limit: number
}

export interface EventPage {
  /** In sequence order, at most `limit`. */
  readonly events: ReadonlyArray<StoredEvent>
  /** More events of the types asked for follow the page's last. */
  readonly hasMore: boolean
  /** The organization's newest sequence when the page was read: where a reader is once it has all. */
  readonly latestSequence: number
}

/**
 * The position names no place a reader can go on from without missing events: older than the
 * oldest event kept (`retention` removed the events between), or inside the gap a restored
 * database opened (`restore`: a sequence another incarnation of the database gave, which this one
 * never did). A reader that has the events up to `after` has missed some and reloads; one that
 * must go on regardless (a webhook endpoint's fan-out) goes on after `through`, the newest
 * sequence of what is gone or skipped.
 */
export class EventCursorExpired extends Schema.TaggedError<EventCursorExpired>()("EventCursorExpired", {
  after: Schema.Number,
  reason: Schema.Literals(["retention", "restore"]),
  through: Schema.Number
}) {}

/** The position is past the newest event: it was never given to this organization. */
export class EventCursorAhead extends Schema.TaggedError<EventCursorAhead>()("EventCursorAhead", {
  after: Schema.Number,
  latestSequence: Schema.Number
}) {}

export class EventFeed extends Context.Service<
  EventFeed,
  {
    /** The events after a position, read in one snapshot with the newest sequence. */
    readonly after: (
      org: OrgId,
      request: EventsAfter
    ) => Effect.Effect<EventPage, EventCursorExpired | EventCursorAhead>
    /** One event of the organization, by the batch and ordinal its id names. */
    readonly find: (
      org: OrgId,
      place: { readonly batch: bigint; readonly ordinal: number }
    ) => Effect.Effect<Option.Option<StoredEvent>>
    /** Removes the events of syncs committed before `before`; answers how many events went. */
    readonly prune: (before: DateTime.Utc) => Effect.Effect<number>
  }
>()("core/EventFeed") {}
