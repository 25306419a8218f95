/**
 * Handlers of the events group: the feed after a position, and one event by id, within the
 * caller's organization. Event payloads are stored as the JSON they are served as.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../core/api/Api.ts"
import { InvalidRequest, ResourceMissing } from "../../../core/api/Errors.ts"
import { CurrentPrincipal } from "../../../core/api/Security.ts"
import { toWire } from "../../../core/receivables/domain/Events.ts"
import { Feed } from "../../../core/receivables/services/Feed.ts"

export const layer = HttpApiBuilder.group(
  Api,
  "events",
  Effect.fn(function* (handlers) {
    const events = yield* Feed
    return handlers
      .handle("list", ({ query }) =>
        Effect.gen(function* () {
          const { orgId } = yield* CurrentPrincipal
          const page = yield* events.list(orgId, { after: query.after, types: query.type, limit: query.limit }).pipe(
            Effect.catchTags({
              EventCursorExpired: ({ after, reason, through }) =>
                Effect.fail(InvalidRequest.cursorExpired(after, reason, through)),
              EventCursorAhead: ({ after, latestSequence }) =>
                Effect.fail(
                  InvalidRequest.parameterInvalid(
                    "after",
                    `"after" is ${after}, past your organization's newest event (${latestSequence}): pass a sequence this feed gave you.`
                  )
                )
            })
          )
          return HttpServerResponse.jsonUnsafe({
            object: "list",
            data: page.events.map(toWire),
            has_more: page.hasMore,
            latest_sequence: page.latestSequence
          })
        })
      )
      .handle("get", ({ params }) =>
        Effect.gen(function* () {
          const { orgId } = yield* CurrentPrincipal
          const found = yield* events
            .get(orgId, params.id)
            .pipe(Effect.catchTag("EventNotFound", ({ id }) => Effect.fail(ResourceMissing.event(id))))
          return HttpServerResponse.jsonUnsafe(toWire(found))
        })
      )
  })
)
