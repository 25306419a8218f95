/**
 * Every setting of the app, read at start before anything else: each problem is reported on a
 * line of its own (not only the first), and nothing starts until all are right.
 */
import { type Config, Effect, Schema } from "effect"
import * as AddressLimiter from "../adapters/http/AddressLimiter.ts"
import * as ClientAddress from "../adapters/http/ClientAddress.ts"
import * as RateLimiter from "../adapters/http/RateLimiter.ts"
import * as Database from "../adapters/postgres/Database.ts"
import * as PgApiKeys from "../adapters/postgres/PgApiKeys.ts"
import * as VerifiedKeyCache from "../adapters/postgres/VerifiedKeyCache.ts"
import * as AuditRetention from "./AuditRetention.ts"
import * as AppConfig from "./Config.ts"
import * as Demo from "./Demo.ts"
import { syncDeadlineSeconds } from "./Layers.ts"
import * as Logging from "./Logging.ts"
import * as Sync from "./Sync.ts"
import * as Tracing from "./Tracing.ts"

export class InvalidSettings extends Schema.TaggedError<InvalidSettings>()("InvalidSettings", {
  problems: Schema.Array(Schema.String)
}) {}

const all: ReadonlyArray<Config.Config<unknown>> = [
  AppConfig.http,
  Database.settings,
  PgApiKeys.brand,
  VerifiedKeyCache.ttlSeconds,
  RateLimiter.policy,
  AddressLimiter.policy,
  ClientAddress.trustedProxies,
  Sync.settings,
  syncDeadlineSeconds,
  AuditRetention.retentionDays,
  Demo.enabled,
  Logging.settings,
  Tracing.settings
]

// "ConfigError(SchemaError(Expected a port\n  at ["PORT"]))" -> "PORT: expected a port"
export const describeConfigError = (message: string): string => {
  const match = /Expected ([^\n]*)\s+at \["([^"]+)"\]/.exec(message)
  return match === null ? message.replace(/\s+/g, " ") : `${match[2]}: expected ${match[1]}`
}

export const validate = Effect.gen(function* () {
  const problems: Array<string> = []
  for (const setting of all) {
    const read = yield* Effect.exit(setting)
    if (read._tag === "Failure") problems.push(describeConfigError(String(read.cause)))
  }
  if (problems.length > 0) return yield* new InvalidSettings({ problems })
})
