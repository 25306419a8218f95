/**
 * Settings of the HTTP listener, read from the environment. The database reads its own settings
 * in `adapters/postgres/Database.ts`.
 */
import { Config } from "effect"

export const http = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(3000)),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0"))
})

export type Http = typeof http extends Config.Config<infer A> ? A : never
