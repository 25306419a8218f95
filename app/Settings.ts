/**
 * Every setting of the app, read at start before anything else: each problem is reported on a
 * line of its own (not only the first), and nothing starts until all are right.
 */
import { Cause, Config, Effect, Schema, SchemaIssue } from "effect"
import * as InFlight from "../adapters/http/api/InFlight.ts"
import * as ConnectionBudget from "../adapters/http/ConnectionBudget.ts"
import * as NodeServer from "../adapters/http/NodeServer.ts"
import * as AddressLimiter from "../adapters/http/pipeline/AddressLimiter.ts"
import * as Audit from "../adapters/http/pipeline/Audit.ts"
import * as ClientAddress from "../adapters/http/pipeline/ClientAddress.ts"
import * as Cors from "../adapters/http/pipeline/Cors.ts"
import * as Deadline from "../adapters/http/pipeline/Deadline.ts"
import * as RateLimiter from "../adapters/http/pipeline/RateLimiter.ts"
import * as Database from "../adapters/postgres/Database.ts"
import * as NodeWebhookSender from "../adapters/webhooks/NodeWebhookSender.ts"
import * as SecretKeyRing from "../adapters/webhooks/SecretKeyRing.ts"
import * as ApiKeys from "../core/access/services/ApiKeys.ts"
import * as VerifiedKeyCache from "../core/access/services/VerifiedKeyCache.ts"
import * as HashTurns from "../core/accounts/services/HashTurns.ts"
import * as Feed from "../core/receivables/services/Feed.ts"
import * as ManualSync from "../core/receivables/services/ManualSync.ts"
import * as AuditRetention from "./AuditRetention.ts"
import * as AppConfig from "./Config.ts"
import * as Dashboard from "./Dashboard.ts"
import * as DashboardAuditRetention from "./DashboardAuditRetention.ts"
import * as Demo from "./Demo.ts"
import { maxAnswerBytes, syncDeadlineSeconds } from "./Layers.ts"
import * as Logging from "./Logging.ts"
import * as PublicUrl from "./PublicUrl.ts"
import * as Sync from "./Sync.ts"
import * as Tracing from "./Tracing.ts"
import * as WebhookRetention from "./WebhookRetention.ts"

export class InvalidSettings extends Schema.TaggedError<InvalidSettings>()("InvalidSettings", {
  problems: Schema.Array(Schema.String)
}) {}

const all: ReadonlyArray<Config.Config<unknown>> = [
  AppConfig.http,
  AppConfig.metrics,
  Database.settings,
  ApiKeys.brand,
  ApiKeys.maxLiveKeys,
  VerifiedKeyCache.ttlSeconds,
  RateLimiter.policy,
  RateLimiter.organizationPolicy,
  RateLimiter.limitsStore,
  InFlight.policy,
  AddressLimiter.policy,
  NodeServer.maxConnections,
  ConnectionBudget.maxPerAddress,
  ConnectionBudget.headersTimeoutUnderPressureSeconds,
  Deadline.deadlineSeconds,
  Audit.writeTimeoutSeconds,
  ClientAddress.trustedProxies,
  Cors.settings,
  Sync.settings,
  syncDeadlineSeconds,
  maxAnswerBytes,
  ManualSync.minSecondsSetting,
  AuditRetention.retentionDays,
  DashboardAuditRetention.retentionDays,
  Feed.retentionDays,
  Demo.enabled,
  Dashboard.enabled,
  HashTurns.hashesInFlight,
  PublicUrl.publicUrl,
  Logging.settings,
  Tracing.settings,
  Sync.webhookSettings,
  WebhookRetention.retentionDays,
  NodeWebhookSender.allowedHosts,
  SecretKeyRing.secretKeys
]

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** A setting's problem as `NAME: what is wrong`, read from the error's structure. */
export const describeConfigError = (error: Config.ConfigError): string => {
  if (!Schema.isSchemaError(error.cause)) return error.cause.message
  const [issue] = formatIssues(error.cause.issue).issues
  if (issue === undefined) return error.cause.message
  const setting = (issue.path ?? []).map(String).join(".")
  const problem = issue.message.charAt(0).toLowerCase() + issue.message.slice(1)
  return setting === "" ? problem : `${setting}: ${problem}`
}

export const validate = Effect.gen(function* () {
  const problems: Array<string> = []
  for (const setting of all) {
    const read = yield* Effect.exit(setting)
    if (read._tag === "Failure") {
      const error = Cause.squash(read.cause)
      problems.push(error instanceof Config.ConfigError ? describeConfigError(error) : String(error))
    }
  }
  if (problems.length > 0) return yield* new InvalidSettings({ problems })
})
