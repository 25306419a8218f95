/**
 * Settings of the HTTP listeners (the public one, and the metrics' own), read from the
 * environment. The database reads its own settings in `adapters/postgres/Database.ts`.
 */
import { Config, Option, Redacted } from "effect"
import * as Database from "../adapters/postgres/Database.ts"
import type { OwnListener } from "../adapters/webhooks/OutboundPolicy.ts"

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

/** PostgreSQL's host and port in a connection URL, as the driver reads them when they are left out. */
const databaseListener = (url: Redacted.Redacted<string>): ReadonlyArray<OwnListener> => {
  const parsed = URL.parse(Redacted.value(url))
  if (parsed === null) return []
  return [{ host: parsed.hostname.replace(/^\[|\]$/g, "") || "localhost", port: Number(parsed.port) || 5432 }]
}

/**
 * What webhooks never reach, whatever `WEBHOOK_ALLOWED_HOSTS` allows: this process's API and
 * metrics listeners, and its database (`DATABASE_URL` and `DATABASE_DIRECT_URL`, or the embedded
 * server on loopback). A tenant's endpoint on one of them would read the service from inside.
 */
export const ownListeners = Config.all({ http, metrics, database: Database.settings }).pipe(
  Config.map(
    ({ http, metrics, database }): ReadonlyArray<OwnListener> => [
      { host: http.host, port: http.port },
      ...Option.match(metrics.port, { onNone: () => [], onSome: (port) => [{ host: metrics.host, port }] }),
      ...Option.match(database.url, {
        onNone: () => [{ host: "127.0.0.1", port: database.port }],
        onSome: (url) => [
          ...databaseListener(url),
          ...Option.match(database.directUrl, { onNone: () => [], onSome: databaseListener })
        ]
      })
    ]
  )
)
