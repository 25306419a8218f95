/**
 * How an answer travels: a GET answer of the API gets its strong `ETag`, a 304 when the client
 * holds it, and its compression (`transport/Representation`); the answers that never change while
 * the process runs (the OpenAPI document, `/docs` with its script, the icon) are served from their
 * once-compressed copies (`transport/StaticResponses`), the `/docs` page first made to load its
 * script from here (`DocsAssets`). The dashboard's pages are compressed per request; its assets
 * (`immutable`, one response object each) are served as the static answers are.
 * Everything else travels as it is. Settled before the audit entry, which records the status sent
 * (a 304 among them).
 */
import { Effect } from "effect"
import { DocsAssets } from "../api/DocsAssets.ts"
import * as Representation from "../transport/Representation.ts"
import * as StaticResponses from "../transport/StaticResponses.ts"
import * as RequestPath from "./RequestPath.ts"
import type { Step } from "./Step.ts"

export const step = Effect.map(
  Effect.service(DocsAssets),
  (docs): Step =>
    (request, next) => {
      const route = request.route
      // Only a read is answered 304: a write is never skipped because its answer looks familiar.
      const read = request.method === "GET" || request.method === "HEAD"
      const conditions = {
        "accept-encoding": request.headers["accept-encoding"],
        "if-none-match": read ? request.headers["if-none-match"] : undefined
      }
      if (route?.dashboard === true) {
        return Effect.flatMap(next, (answer) =>
          /\bimmutable\b/.test(answer.headers["cache-control"] ?? "")
            ? StaticResponses.serve(answer, conditions)
            : Representation.compressed(answer, conditions["accept-encoding"])
        )
      }
      if (route?.static !== true && route?.api !== true) return next
      if (route.api === true) return Effect.flatMap(next, (answer) => Representation.represent(answer, conditions))
      return Effect.flatMap(next, (answer) =>
        route.pattern === RequestPath.docsPath
          ? Effect.flatMap(docs.page(answer), (page) => StaticResponses.serve(page, conditions))
          : StaticResponses.serve(answer, conditions)
      )
    }
)
