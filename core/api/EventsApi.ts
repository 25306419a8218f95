/**
 * The events feed's part of the contract: `GET /v1/events` and `GET /v1/events/:id`, beyond
 * spec section 6's planned webhooks and in their envelope, a non-breaking addition (spec 9.2).
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Event, EventType, eventTypes } from "../receivables/domain/Events.ts"
import { ResourceMissing } from "./Errors.ts"
import { IntegerParam, Limit } from "./Query.ts"

export const After = IntegerParam({
  minimum: 0,
  fallback: 0,
  description:
    "Events with a sequence greater than this one: the `sequence` of the last event you processed, or the `latest_sequence` noted before a full load. Default 0, the oldest kept. Older than the retention, or given before a restore of the database to events it no longer holds: 400 `cursor_expired`. Greater than your organization's newest sequence (`latest_sequence`), which no position in your feed is: 400 `parameter_invalid`."
})

export const eventsQuery = {
  after: After,
  type: Schema.optionalKey(Schema.Array(EventType)).annotateKey({
    description: `Only events of this type: ${eventTypes.join(", ")}; repeat the parameter for several. Every type when omitted.`
  }),
  limit: Limit
}

export const EventList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(Event),
  has_more: Schema.Boolean.annotate({ description: "More events follow the last of this page" }),
  latest_sequence: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
    description:
      "Your organization's newest sequence when this page was read. Note it before a full load, then follow the feed from it."
  })
}).annotate({ identifier: "EventList" })

export class EventsGroup extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("list", "/events", { query: eventsQuery, success: EventList }).annotateMerge(
      OpenApi.annotations({
        summary: "List events",
        description:
          "Your organization's receivable events in the order their syncs committed, each with a `sequence` that strictly increases. `after=<sequence>` returns exactly the events committed after it: none twice, none skipped, however many pairs sync at once. Keep the last `sequence` you processed and pass it next time. Events are kept for the retention period (30 days by default); an `after` older than that is refused with `cursor_expired`: do a full load again. So is an `after` given before the operator restored the database from a backup, to events the backup does not hold (sequences then jump past them, so no held position can name a new event: they strictly increase, but are not consecutive). An `after` past your newest sequence is refused with `parameter_invalid`.\n\nKeeping a copy: note `latest_sequence`, load everything (`GET /v1/receivables?verified_since=all&expand[]=metadata`), then follow the feed from it and upsert the `data.receivable` of each `receivable.created` and `receivable.updated` by `id`. A `receivable.status_changed` carries no receivable: it repeats the `receivable.updated` of the same change. An event's receivable has no `estimated_next_update_at`, which is its pair's schedule and moves at every sync of the pair, also one that changes nothing: after each round, set it on every receivable of each pair from `GET /v1/integrations`. The copy then equals a full load, field for field."
      })
    ),
    HttpApiEndpoint.get("get", "/events/:id", {
      params: { id: Schema.String.annotate({ description: "Event identifier: evt_ and 32 hex characters" }) },
      success: Event,
      error: ResourceMissing
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Get an event",
        description: "One event of your organization's feed by its id, while retention keeps it."
      })
    )
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Events",
      description: "The changes to your receivables as a feed, in the order their syncs committed."
    })
  ) {}
