/**
 * The metrics' own listener (`METRICS_PORT`, on `METRICS_HOST`, loopback by default): `GET
 * /metrics`, and the documented 404 or 405 for anything else. The counts are service-wide, so
 * they are not the public port's to show, and a scrape loop here cannot slow the tenants'
 * requests through the API's pipeline. Unaudited, unlimited and untraced, like a probe: whoever
 * reaches this address is an operator.
 */
import { createServer } from "node:http"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, References } from "effect"
import { HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { MethodNotAllowed, ResourceMissing } from "../../../core/api/Errors.ts"
import * as ErrorResponse from "../pipeline/ErrorResponse.ts"
import { scrape } from "./Metrics.ts"

const metricsPath = "/metrics"

/** Where the metrics listen. */
export interface MetricsAddress {
  readonly port: number
  readonly host: string
}

const answer = <R>(scrape: Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    if (request.url !== metricsPath) {
      return Effect.succeed(ErrorResponse.of(ResourceMissing, ResourceMissing.route(request.method, request.url), 404))
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return Effect.succeed(
        HttpServerResponse.setHeader(
          ErrorResponse.of(MethodNotAllowed, MethodNotAllowed.of(request.method, metricsPath), 405),
          "allow",
          "GET"
        )
      )
    }
    return scrape
  })

/** Cannot listen where the settings say: the one line printed at start names the settings. */
class MetricsListenFailed extends Error {}

/**
 * The listener, for as long as the layer lives, reading `gauges` (`Metrics.apiGauges` or
 * `Metrics.pairGauges`) at each scrape; the event loop's delay is sampled while it lives.
 */
export const serve = <R>(address: MetricsAddress, gauges: Effect.Effect<void, never, R>) =>
  Layer.unwrap(
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => {
          const loop = monitorEventLoopDelay({ resolution: 10 })
          loop.enable()
          return loop
        }),
        (loop) => Effect.sync(() => loop.disable())
      ),
      (loop) => HttpServer.serve()(answer(scrape(gauges, loop)))
    )
  ).pipe(
    // A scrape is no work of the service's: traced, every scrape of an idle process would send
    // spans (its request and the gauges' statements).
    Layer.provide(Layer.succeed(References.TracerEnabled)(false)),
    Layer.provide(NodeHttpServer.layer(() => createServer(), { port: address.port, host: address.host })),
    Layer.catchTag("ServeError", (error) =>
      Layer.effectDiscard(
        Effect.fail(
          new MetricsListenFailed(
            `cannot listen for metrics on ${address.host}:${address.port} (${error.cause instanceof Error ? error.cause.message : "unknown"}): set METRICS_PORT and METRICS_HOST`
          )
        )
      )
    )
  )
