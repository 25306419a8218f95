/**
 * Settings of the HTTP listeners (the public one, and the metrics' own), read from the
 * environment. The database reads its own settings in `adapters/postgres/Database.ts`.
 */
import { Config } from "effect"

export const http = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(3000)),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0"))
})

export type Http = typeof http extends Config.Config<infer A> ? A : never

/**
 * Where `GET /metrics` is served: never on the public port. Without `METRICS_PORT`, nowhere:
 * several processes of the service may share a host, and none opens a port nobody asked for.
 */
export const metrics = Config.all({
  port: Config.option(Config.Port("METRICS_PORT")),
  host: Config.String("METRICS_HOST").pipe(Config.withDefault("127.0.0.1"))
})

export type Metrics = typeof metrics extends Config.Config<infer A> ? A : never
