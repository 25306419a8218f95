/**
 * Log output: one JSON object per line (`LOG_FORMAT=json`, the default when the output is not a
 * terminal, for log collectors) or readable lines (`pretty`, the default on a terminal); entries
 * below `LOG_LEVEL` (default Info) are dropped.
 */
import { Config, Effect, Layer, Logger, References } from "effect"

export const settings = Config.all({
  format: Config.Literals(["json", "pretty"], "LOG_FORMAT").pipe(
    Config.withDefault(process.stdout.isTTY ? ("pretty" as const) : ("json" as const))
  ),
  level: Config.LogLevel("LOG_LEVEL").pipe(Config.withDefault("Info" as const))
})

export const layer = Layer.unwrap(
  Effect.map(settings, ({ format, level }) =>
    Layer.mergeAll(
      Logger.layer([format === "json" ? Logger.consoleJson : Logger.consolePretty()]),
      Layer.succeed(References.MinimumLogLevel, level)
    )
  )
)
