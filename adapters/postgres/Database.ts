/**
 * The PostgreSQL connection of the bundled app: the server named by `DATABASE_URL`, or else the
 * embedded one in `DATA_DIR`. Provides `SqlClient`/`PgClient` from `effect/sql`, and `DirectClient`
 * for what needs a session of its own (`LISTEN`, migrations) when `DATABASE_URL` names a pooler in
 * transaction mode. Fails with one readable sentence when the database cannot be reached (never
 * the password).
 */

import { join } from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Config, Context, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import * as Embedded from "./embedded/Embedded.ts"

export class DatabaseUnavailable extends Schema.TaggedError<DatabaseUnavailable>()("DatabaseUnavailable", {
  message: Schema.String
}) {}

/** `postgres://user@host:port/db` with the password left out, for messages. */
export const describeUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    parsed.password = ""
    return parsed.toString()
  } catch {
    return "an unparsable DATABASE_URL"
  }
}

// The driver says only "Failed to connect" or "Query failed"; the error beneath it says why.
export const innermostMessage = (error: unknown): string => {
  let message = error instanceof Error ? error.message : String(error)
  for (let cause = (error as { cause?: unknown }).cause; cause instanceof Error; cause = cause.cause) {
    message = cause.message
  }
  return message
}

const unavailable = (where: string) => (error: unknown) =>
  new DatabaseUnavailable({ message: `cannot use PostgreSQL at ${where}: ${innermostMessage(error)}` })

const reachable = (where: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`SELECT 1`.pipe(
      Effect.timeoutOrElse({
        duration: Duration.seconds(10),
        orElse: () =>
          Effect.fail(new DatabaseUnavailable({ message: `no answer from PostgreSQL at ${where} within 10 s` }))
      }),
      Effect.catchTag("SqlError", (error) => Effect.fail(unavailable(where)(error)))
    )
  })

/**
 * A client whose connections are sessions of their own, straight to PostgreSQL: `LISTEN` (which
 * a pooler in transaction mode would lose between transactions) and the migrations. The pool's
 * own client when no `DATABASE_DIRECT_URL` is set.
 */
export class DirectClient extends Context.Service<DirectClient, PgClient.PgClient>()(
  "adapters/postgres/DirectClient"
) {}

export interface PoolOptions {
  readonly maxConnections?: number
  /**
   * Named prepared statements, kept per connection (default on). A pooler in transaction mode
   * without protocol-level prepared statements (PgBouncer before 1.21, or with
   * `max_prepared_statements = 0`) hands the next statement to a server connection that never saw
   * the name, so there they must be off; statements then go unnamed, parsed with each execution.
   */
  readonly preparedStatements?: boolean
  /** The direct address for `DirectClient`, when `url` is a pooler's. */
  readonly directUrl?: Redacted.Redacted<string> | undefined
}

const applicationName = "partner-receivables"

/**
 * The server and database of `url` as the driver's spans name them (`server.address`,
 * `server.port`, `db.namespace`): given a URL alone it names every span `localhost`, 5432,
 * `postgres`. The same values the driver reads from the URL, so the connection is unchanged; a
 * socket directory (`?host=`) or several hosts are left to the URL, and to the defaults' names.
 */
export const spanTarget = (url: string): { host?: string; port?: number; database?: string } => {
  try {
    const parsed = new URL(url)
    if (parsed.searchParams.has("host") || parsed.hostname === "" || parsed.hostname.includes(",")) return {}
    const database = decodeURIComponent(parsed.pathname.slice(1))
    return {
      host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
      ...(parsed.port === "" ? {} : { port: Number(parsed.port) }),
      ...(database === "" ? {} : { database })
    }
  } catch {
    return {}
  }
}

// At most two: the migrations at start, whose connection the revocation `LISTEN` then reuses,
// and the demo's seeding lock where a demo is seeded. An idle one closes after a minute (its
// sweep may take another), so a worker holds none after its first minute or two.
const directConnections = 2
const directIdle = Duration.minutes(1)

const directClient = (
  directUrl: Redacted.Redacted<string> | undefined
): Layer.Layer<DirectClient, DatabaseUnavailable, PgClient.PgClient> => {
  if (directUrl === undefined) return Layer.effect(DirectClient, PgClient.PgClient)
  const where = describeUrl(Redacted.value(directUrl))
  const client = PgClient.make({
    url: directUrl,
    ...spanTarget(Redacted.value(directUrl)),
    maxConnections: directConnections,
    idleTimeout: directIdle,
    applicationName
  }).pipe(Effect.mapError(unavailable(where)))
  return Layer.effect(
    DirectClient,
    Effect.tap(client, (direct) => reachable(where).pipe(Effect.provideService(SqlClient.SqlClient, direct)))
  ).pipe(Layer.provide(Reactivity.layer))
}

/** A pool on `url`, checked with one query so that a bad address fails at start, not later. */
export const layerUrl = (url: Redacted.Redacted<string>, options: PoolOptions = {}) => {
  const where = describeUrl(Redacted.value(url))
  const pool = PgClient.make({
    url,
    ...spanTarget(Redacted.value(url)),
    maxConnections: options.maxConnections ?? 10,
    prepare: options.preparedStatements ?? true,
    applicationName
  }).pipe(Effect.mapError(unavailable(where)))
  return Layer.effectDiscard(reachable(where)).pipe(
    Layer.provideMerge(directClient(options.directUrl)),
    Layer.provideMerge(PgClient.layerFrom(pool))
  )
}

/** The embedded server in `dataDir`, started for the lifetime of the layer. */
export const layerEmbedded = (options: Embedded.EmbeddedOptions & { readonly maxConnections?: number }) =>
  Layer.unwrap(
    Embedded.start(options).pipe(
      Effect.map((server) => layerUrl(Redacted.make(server.url), options)),
      Effect.mapError((error) => new DatabaseUnavailable({ message: `embedded PostgreSQL: ${error.message}` }))
    )
  )

export const settings = Config.all({
  url: Config.option(Config.Redacted("DATABASE_URL")),
  directUrl: Config.option(Config.Redacted("DATABASE_DIRECT_URL")),
  maxConnections: Config.Int("DATABASE_POOL_SIZE").pipe(Config.withDefault(10)),
  preparedStatements: Config.Boolean("DATABASE_PREPARED_STATEMENTS").pipe(Config.withDefault(true)),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault(".data")),
  port: Config.Port("EMBEDDED_POSTGRES_PORT").pipe(Config.withDefault(54329))
})

/**
 * `DATABASE_URL` when set, otherwise the embedded server under `DATA_DIR` (which no pooler stands
 * in front of, so the direct address and the statement setting apply to `DATABASE_URL` only).
 */
export const layer = Layer.unwrap(
  Effect.map(settings, ({ url, directUrl, maxConnections, preparedStatements, dataDir, port }) =>
    Option.isSome(url)
      ? layerUrl(url.value, { maxConnections, preparedStatements, directUrl: Option.getOrUndefined(directUrl) })
      : layerEmbedded({ baseDir: join(dataDir, "postgres"), port, maxConnections })
  )
)
