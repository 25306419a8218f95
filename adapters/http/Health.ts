/**
 * `GET /health`: the process is up and serving. It needs no key and touches no database, so
 * load balancers and orchestrators can probe it cheaply.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"

export const routes = HttpRouter.use(
  Effect.fn(function* (router) {
    yield* router.add("GET", "/health", Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "ok" })))
  })
)
