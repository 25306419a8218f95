/**
 * The PostgreSQL connection of the bundled app: the server named by `DATABASE_URL`, or else the
 * embedded one in `DATA_DIR`. Provides `SqlClient`/`PgClient` from `effect/sql` and fails with one
 * readable sentence when the database cannot be reached (never the password).
 */

import { join } from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Config, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
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

/** A pool on `url`, checked with one query so that a bad address fails at start, not later. */
export const layerUrl = (url: Redacted.Redacted<string>, options: { readonly maxConnections?: number } = {}) => {
  const where = describeUrl(Redacted.value(url))
  const pool = PgClient.make({
    url,
    maxConnections: options.maxConnections ?? 10,
    applicationName: "partner-receivables"
  }).pipe(Effect.mapError(unavailable(where)))
  return Layer.effectDiscard(reachable(where)).pipe(Layer.provideMerge(PgClient.layerFrom(pool)))
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
  maxConnections: Config.Int("DATABASE_POOL_SIZE").pipe(Config.withDefault(10)),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault(".data")),
  port: Config.Port("EMBEDDED_POSTGRES_PORT").pipe(Config.withDefault(54329))
})

/** `DATABASE_URL` when set, otherwise the embedded server under `DATA_DIR`. */
export const layer = Layer.unwrap(
  Effect.map(settings, ({ url, maxConnections, dataDir, port }) =>
    Option.isSome(url)
      ? layerUrl(url.value, { maxConnections })
      : layerEmbedded({ baseDir: join(dataDir, "postgres"), port, maxConnections })
  )
)
