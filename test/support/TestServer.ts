/**
 * The service's HTTP routes on a real socket (loopback, a free port) over the test file's own
 * database, exactly as `app/main.ts` wires them, and the metrics' own listener on another. Yields
 * the base URLs; requests go through `fetch`.
 */
import { ConfigProvider, Context, Effect, Layer } from "effect"
import * as InFlight from "../../adapters/http/api/InFlight.ts"
import * as NodeServer from "../../adapters/http/NodeServer.ts"
import * as AddressLimiter from "../../adapters/http/pipeline/AddressLimiter.ts"
import * as ClientAddress from "../../adapters/http/pipeline/ClientAddress.ts"
import { make, makeOver, RateLimiter } from "../../adapters/http/pipeline/RateLimiter.ts"
import * as VerifiedSessions from "../../adapters/http/pipeline/VerifiedSessions.ts"
import * as Metrics from "../../adapters/http/probes/Metrics.ts"
import * as MetricsListener from "../../adapters/http/probes/MetricsListener.ts"
import * as PgRateLimitStore from "../../adapters/postgres/PgRateLimitStore.ts"
import * as Dashboard from "../../app/Dashboard.ts"
import { ServicesLive } from "../../app/Layers.ts"
import type { RateLimitPolicy } from "../../core/shared/domain/RateLimit.ts"
import { freePort } from "./ports.ts"
import * as TestDatabase from "./TestDatabase.ts"

export class BaseUrl extends Context.Service<BaseUrl, string>()("test/BaseUrl") {}

/** The metrics' own listener (`METRICS_PORT`), beside the public one. */
export class MetricsUrl extends Context.Service<MetricsUrl, string>()("test/MetricsUrl") {}

export interface ServerOptions {
  /** Per key; by default no practical limit. */
  readonly rateLimit?: RateLimitPolicy
  /** Per organization where it has none of its own; by default no practical limit. */
  readonly orgRateLimit?: RateLimitPolicy
  /**
   * The rate limits kept in PostgreSQL (`LIMITS_STORE=postgres`, with this process's local
   * allowances), as several instances share them; by default in this process's memory.
   */
  readonly sharedLimits?: boolean
  /** Requests in flight per key and per organization; by default no practical limit. */
  readonly inFlight?: InFlight.InFlightPolicy
  /** Per client address, for requests no accepted key vouches for; by default no practical limit. */
  readonly addressLimit?: RateLimitPolicy
  readonly trustedProxies?: ReadonlyArray<string>
  /** The listener's limits, where a test shortens them. */
  readonly limits?: Partial<NodeServer.Limits>
  /** Settings the server reads as the app would from its environment (`REQUEST_DEADLINE_SECONDS`, ...). */
  readonly settings?: Record<string, string>
  /** The dashboard's pages beside the API, as `DASHBOARD=on` serves them; off by default. */
  readonly dashboard?: boolean
  /** The loopback address to listen on: `127.0.0.1` by default, `::1` for clients with an IPv6 address. */
  readonly host?: "127.0.0.1" | "::1"
}

const unlimited = { perSecond: 1_000_000, burst: 1_000_000 }

/** The settings a test gives, read by the routes and the services alike (`MAX_ANSWER_BYTES`, ...). */
const settingsOf = (options: ServerOptions) =>
  options.settings === undefined
    ? Layer.empty
    : ConfigProvider.layerAdd(ConfigProvider.fromUnknown(options.settings), { asPrimary: true })

/**
 * A server over the database already provided (`SqlClient`, `PgClient`), with rate-limit
 * policies of the test's choosing. Several can share a database, as several instances of the
 * app do.
 */
export const serverLayer = (options: ServerOptions = {}) => {
  const host = options.host ?? "127.0.0.1"
  return Layer.unwrap(
    Effect.map(Effect.all([Effect.promise(freePort), Effect.promise(freePort)]), ([port, metricsPort]) =>
      Layer.mergeAll(
        Layer.succeed(BaseUrl, `http://${host === "::1" ? "[::1]" : host}:${port}`),
        Layer.succeed(MetricsUrl, `http://127.0.0.1:${metricsPort}`),
        Layer.merge(
          NodeServer.serve(Dashboard.routes(options.dashboard ?? false), {
            port,
            host,
            limits: options.limits
          }),
          MetricsListener.serve({ port: metricsPort, host: "127.0.0.1" }, Metrics.apiGauges)
        ).pipe(
          Layer.provide(settingsOf(options)),
          Layer.provide(ServicesLive.pipe(Layer.provide(settingsOf(options)))),
          Layer.provide([
            options.sharedLimits === true
              ? Layer.effect(
                  RateLimiter,
                  makeOver(options.rateLimit ?? unlimited, options.orgRateLimit ?? unlimited)
                ).pipe(Layer.provide(PgRateLimitStore.layer))
              : Layer.effect(RateLimiter, make(options.rateLimit ?? unlimited, options.orgRateLimit ?? unlimited)),
            Layer.effect(
              InFlight.InFlight,
              InFlight.make(options.inFlight ?? { perKey: 10_000, perOrganization: 10_000 })
            ),
            Layer.effect(AddressLimiter.AddressLimiter, AddressLimiter.make(options.addressLimit ?? unlimited)),
            Layer.succeed(ClientAddress.ClientAddress, ClientAddress.make(options.trustedProxies ?? [])),
            // Its own, as each instance of the app has: never one shared by the process's servers.
            Layer.succeed(VerifiedSessions.VerifiedSessions, VerifiedSessions.make())
          ])
        )
      )
    )
  )
}

/** A server over the test file's own database. */
export const layerWith = (options: ServerOptions = {}) =>
  serverLayer(options).pipe(Layer.provideMerge(TestDatabase.layer))

export const layer = layerWith()
