/**
 * The service's HTTP routes on a real socket (loopback, a free port) over the test file's own
 * database, exactly as `app/main.ts` wires them. Yields the base URL; requests go through `fetch`.
 */
import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import * as Metrics from "../../adapters/http/Metrics.ts"
import { make, RateLimiter } from "../../adapters/http/RateLimiter.ts"
import * as Server from "../../adapters/http/Server.ts"
import { ServicesLive } from "../../app/Layers.ts"
import type { RateLimitPolicy } from "../../core/domain/RateLimit.ts"
import { freePort } from "./ports.ts"
import * as TestDatabase from "./TestDatabase.ts"

export class BaseUrl extends Context.Service<BaseUrl, string>()("test/BaseUrl") {}

/**
 * A server over the database already provided (`SqlClient`, `PgClient`), with a rate-limit
 * policy of the test's choosing (by default, no practical limit). Several can share a database,
 * as several instances of the app do.
 */
export const serverLayer = (options: { readonly rateLimit?: RateLimitPolicy } = {}) =>
  Layer.unwrap(
    Effect.map(Effect.promise(freePort), (port) =>
      Layer.mergeAll(
        Layer.succeed(BaseUrl, `http://127.0.0.1:${port}`),
        HttpRouter.serve(Server.routes, { disableLogger: true, disableListenLog: true }).pipe(
          Layer.provide([ServicesLive, Metrics.layer]),
          Layer.provide(
            Layer.effect(RateLimiter, make(options.rateLimit ?? { perSecond: 1_000_000, burst: 1_000_000 }))
          ),
          Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
        )
      )
    )
  )

/** A server over the test file's own database. */
export const layerWith = (options: { readonly rateLimit?: RateLimitPolicy } = {}) =>
  serverLayer(options).pipe(Layer.provideMerge(TestDatabase.layer))

export const layer = layerWith()
