/**
 * The events feed as a service over the `EventFeed` port: reads an organization's events after a
 * position, finds one by its id, and applies the retention (`EVENT_RETENTION_DAYS`).
 */
import { Config, Context, DateTime, type Duration, Effect, Layer, Option, Schema } from "effect"
import type { OrgId } from "../../shared/domain/Ids.ts"
import { type EventType, parseEventId, type StoredEvent } from "../domain/Events.ts"
import { type EventCursorAhead, type EventCursorExpired, EventFeed, type EventPage } from "../ports/EventFeed.ts"

export class EventNotFound extends Schema.TaggedError<EventNotFound>()("EventNotFound", { id: Schema.String }) {}

/** How long events are kept: `EVENT_RETENTION_DAYS`, at least 30, by default 30. */
export const retentionDays = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(30)),
  "EVENT_RETENTION_DAYS"
).pipe(Config.withDefault(30))

export class Feed extends Context.Service<
  Feed,
  {
    readonly list: (
      org: OrgId,
      query: {
        /** Absent: from the oldest event kept. */
        readonly after?: number | undefined
        readonly types?: ReadonlyArray<EventType> | undefined
        readonly limit: number
      }
    ) => Effect.Effect<EventPage, EventCursorExpired | EventCursorAhead>
    readonly get: (org: OrgId, id: string) => Effect.Effect<StoredEvent, EventNotFound>
    /** Removes the events older than `retention`; answers how many went. */
    readonly prune: (retention: Duration.Duration) => Effect.Effect<number>
  }
>()("core/Feed") {
  static readonly layer = Layer.effect(
    Feed,
    Effect.gen(function* () {
      const feed = yield* EventFeed

      const list = Effect.fn("Feed.list")(function* (
        org: OrgId,
        query: {
          readonly after?: number | undefined
          readonly types?: ReadonlyArray<EventType> | undefined
          readonly limit: number
        }
      ) {
        // A repeated type asks nothing more; none asked is every type.
        const types = query.types === undefined || query.types.length === 0 ? undefined : [...new Set(query.types)]
        return yield* feed.after(org, { after: query.after, types, limit: query.limit })
      })

      const get = Effect.fn("Feed.get")(function* (org: OrgId, id: string) {
        // A malformed id cannot exist: it is "not found" without a query.
        const place = parseEventId(id)
        const found = place === undefined ? Option.none() : yield* feed.find(org, place)
        if (Option.isNone(found)) return yield* new EventNotFound({ id })
        return found.value
      })

      const prune = Effect.fn("Feed.prune")(function* (retention: Duration.Duration) {
        return yield* feed.prune(DateTime.subtractDuration(yield* DateTime.now, retention))
      })

      return Feed.of({ list, get, prune })
    })
  )
}
