/**
 * Probes for load balancers and orchestrators, public and never audited. `GET /health`: the
 * process is up (touches nothing). `GET /ready`: the `Readiness` port says the storage answers
 * with the data layout this build expects; 503 otherwise, with the reason and `Retry-After` (the
 * pipeline's, as for every 503: a database that does not answer usually answers again soon).
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { Readiness } from "../../../core/shared/ports/Readiness.ts"
import { retryAfterSeconds } from "../pipeline/Refusals.ts"

export const routes = HttpRouter.use(
  Effect.fn(function* (router) {
    const readiness = yield* Readiness
    yield* router.add("GET", "/health", Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "ok" })))
    yield* router.add(
      "GET",
      "/ready",
      Effect.map(readiness.check, (state) =>
        state.ready
          ? HttpServerResponse.jsonUnsafe({ status: "ready" })
          : HttpServerResponse.jsonUnsafe(
              { status: "not ready", reason: state.reason },
              { status: 503, headers: { "retry-after": String(retryAfterSeconds) } }
            )
      )
    )
  })
)
