/**
 * The services of the bundled app over PostgreSQL (each requires `SqlClient`): what the HTTP
 * routes need (receivables, events, key verification, the audit log), what operators manage
 * (organizations, keys, vendors, debtors, integrations), the dashboard's access, the sync engine,
 * and the API's limits over the store `LIMITS_STORE` names.
 */

import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import { Config, Duration, Effect, Layer, Schema } from "effect"
import { SecureRandom } from "effect/crypto"
import * as InFlight from "../adapters/http/api/InFlight.ts"
import * as RateLimiter from "../adapters/http/pipeline/RateLimiter.ts"
import * as RandomIds from "../adapters/ids/RandomIds.ts"
import * as ScryptPasswordHasher from "../adapters/passwords/ScryptPasswordHasher.ts"
import * as ShippedCommonPasswords from "../adapters/passwords/ShippedCommonPasswords.ts"
import * as Connectors from "../adapters/portals/Connectors.ts"
import * as PgApiKeyStore from "../adapters/postgres/PgApiKeyStore.ts"
import * as PgAuditLog from "../adapters/postgres/PgAuditLog.ts"
import * as PgDashboardAuditLog from "../adapters/postgres/PgDashboardAuditLog.ts"
import * as PgDirectoryStore from "../adapters/postgres/PgDirectoryStore.ts"
import * as PgEventFeed from "../adapters/postgres/PgEventFeed.ts"
import * as PgInFlightStore from "../adapters/postgres/PgInFlightStore.ts"
import * as PgKeyUsageStore from "../adapters/postgres/PgKeyUsageStore.ts"
import * as PgOrganizations from "../adapters/postgres/PgOrganizations.ts"
import * as PgPairStore from "../adapters/postgres/PgPairStore.ts"
import * as PgRateLimitStore from "../adapters/postgres/PgRateLimitStore.ts"
import * as PgReadiness from "../adapters/postgres/PgReadiness.ts"
import * as PgReceivableStore from "../adapters/postgres/PgReceivableStore.ts"
import * as PgSecondFactorStore from "../adapters/postgres/PgSecondFactorStore.ts"
import * as PgSessionStore from "../adapters/postgres/PgSessionStore.ts"
import * as PgShownOnceStore from "../adapters/postgres/PgShownOnceStore.ts"
import * as PgSignInThrottleStore from "../adapters/postgres/PgSignInThrottleStore.ts"
import * as PgUserStore from "../adapters/postgres/PgUserStore.ts"
import * as PgWebhookDeliveryStore from "../adapters/postgres/PgWebhookDeliveryStore.ts"
import * as PgWebhookEndpointStore from "../adapters/postgres/PgWebhookEndpointStore.ts"
import * as EnvironmentSecrets from "../adapters/secrets/EnvironmentSecrets.ts"
import * as OtpauthCodes from "../adapters/totp/OtpauthCodes.ts"
import * as NodeWebhookCrypto from "../adapters/webhooks/NodeWebhookCrypto.ts"
import * as NodeWebhookSender from "../adapters/webhooks/NodeWebhookSender.ts"
import * as MemoryInFlightStore from "../core/access/memory/InFlightStore.ts"
import * as MemoryRateLimitStore from "../core/access/memory/RateLimitStore.ts"
import { ApiKeys } from "../core/access/services/ApiKeys.ts"
import * as VerifiedKeyCache from "../core/access/services/VerifiedKeyCache.ts"
import * as MemorySignInThrottleStore from "../core/accounts/memory/SignInThrottleStore.ts"
import { Accounts } from "../core/accounts/services/Accounts.ts"
import { SecondFactors } from "../core/accounts/services/SecondFactors.ts"
import { Team } from "../core/admin/services/Team.ts"
import * as AnswerSize from "../core/receivables/domain/AnswerSize.ts"
import { Directory } from "../core/receivables/services/Directory.ts"
import { Feed } from "../core/receivables/services/Feed.ts"
import { ManualSync } from "../core/receivables/services/ManualSync.ts"
import { Receivables } from "../core/receivables/services/Receivables.ts"
import {
  defaultDeadline,
  defaultLease,
  maxDeadline,
  minDeadline,
  SyncEngine
} from "../core/receivables/services/SyncEngine.ts"
import { WebhookDelivery } from "../core/webhooks/services/WebhookDelivery.ts"
import { WebhookEndpoints } from "../core/webhooks/services/WebhookEndpoints.ts"
import * as AppConfig from "./Config.ts"

/** The core's key policy over the PostgreSQL stores, with the cache of verified keys between them (its `VerifiedKeys` for the API). */
const ApiKeysLive = ApiKeys.layer.pipe(
  Layer.provideMerge(VerifiedKeyCache.layer),
  Layer.provide([PgApiKeyStore.layer, PgKeyUsageStore.layer, NodeCrypto.layerDigest, SecureRandom.layerWebCrypto])
)

/**
 * Where the sign-in throttles keep their times: where `LIMITS_STORE` keeps the API's limits, so
 * that every process on the database counts one account's wrong passwords and codes together;
 * and this process's memory, where they count while that store cannot be reached.
 */
const SignInThrottleStoreLive = Layer.merge(
  Layer.unwrap(
    Effect.map(RateLimiter.limitsStore, (store) =>
      store === "postgres" ? PgSignInThrottleStore.layer : MemorySignInThrottleStore.layerOwnState()
    )
  ),
  MemorySignInThrottleStore.layerStandIn()
)

/**
 * The dashboard's users, invites, sessions, second factors and their audit, over PostgreSQL, with
 * scrypt and otpauth.
 */
export const AccountsLive = Team.layer.pipe(
  Layer.provideMerge(Accounts.layer),
  Layer.provideMerge(SecondFactors.layer),
  Layer.provide([
    SignInThrottleStoreLive,
    OtpauthCodes.layer,
    PgUserStore.layer,
    PgSecondFactorStore.layer,
    PgSessionStore.layer,
    PgDashboardAuditLog.layer,
    ScryptPasswordHasher.layer,
    ShippedCommonPasswords.layer,
    NodeCrypto.layerDigest,
    SecureRandom.layerWebCrypto
  ])
)

/** The events feed over its PostgreSQL store. */
export const FeedLive = Feed.layer.pipe(Layer.provide(PgEventFeed.layer))

/** The largest answer a page of receivables may make (`MAX_ANSWER_BYTES`, default 8 MiB). */
export const maxAnswerBytes = Config.schema(
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 65_536, maximum: 268_435_456 })),
  "MAX_ANSWER_BYTES"
).pipe(Config.withDefault(AnswerSize.defaultMaxAnswerBytes))

const ReceivablesLive = Layer.unwrap(
  Effect.map(maxAnswerBytes, (bytes) => Receivables.layerWith({ maxAnswerBytes: bytes }))
).pipe(Layer.provide(PgReceivableStore.layer))

/** The Node sender under `WEBHOOK_ALLOWED_HOSTS`, kept off this process's own listeners and database. */
export const WebhookSenderLive = Layer.unwrap(Effect.map(AppConfig.ownListeners, NodeWebhookSender.layerWith))

/**
 * Webhooks over PostgreSQL: the management service the API calls, and the delivery worker that
 * `Sync.WebhookWorkerLive` runs; with the stores, the Node sender, the sealed secrets' crypto, and
 * the dashboard's audit, where the worker tells an organization it disabled an endpoint.
 */
export const WebhooksLive = WebhookEndpoints.layer.pipe(
  Layer.provideMerge(WebhookDelivery.layer),
  Layer.provideMerge(
    Layer.mergeAll(
      PgWebhookEndpointStore.layer,
      PgWebhookDeliveryStore.layer,
      NodeWebhookCrypto.layer,
      WebhookSenderLive
    )
  ),
  Layer.provide(Layer.merge(PgEventFeed.layer, PgDashboardAuditLog.layer))
)

export const ServicesLive = Layer.mergeAll(
  ReceivablesLive,
  WebhooksLive,
  FeedLive,
  ApiKeysLive,
  PgAuditLog.layerSpooled,
  PgPairStore.layer,
  PgReadiness.layer,
  // The dashboard's secrets shown once, taken by its pages as they answer.
  PgShownOnceStore.layer,
  RandomIds.layer
)

/** The limits' state where `LIMITS_STORE` says: shared in PostgreSQL, or in this process. */
const LimitStoresLive = Layer.unwrap(
  Effect.map(RateLimiter.limitsStore, (store) =>
    store === "postgres"
      ? Layer.merge(PgRateLimitStore.layer, PgInFlightStore.layer)
      : Layer.merge(MemoryRateLimitStore.layerOwnState, MemoryInFlightStore.layerOwnState)
  )
)

/** The API's rate limits and requests in flight. */
export const LimitsLive = Layer.merge(RateLimiter.layer, InFlight.layer).pipe(Layer.provide(LimitStoresLive))

/** A sync's overall deadline where its integration sets none (`SYNC_DEADLINE_SECONDS`, default 300). */
export const syncDeadlineSeconds = Config.schema(
  Schema.FiniteFromString.check(
    Schema.isBetween({ minimum: Duration.toSeconds(minDeadline), maximum: Duration.toSeconds(maxDeadline) })
  ),
  "SYNC_DEADLINE_SECONDS"
).pipe(Config.withDefault(Duration.toSeconds(defaultDeadline)))

/**
 * How long a claimed pair and a sync run are leased between heartbeats (`SYNC_LEASE_SECONDS`,
 * default 30): a killed worker's pairs are synced by another about this long after it died.
 */
export const syncLeaseSeconds = Config.schema(
  Schema.FiniteFromString.check(Schema.isBetween({ minimum: 1, maximum: 300 })),
  "SYNC_LEASE_SECONDS"
).pipe(Config.withDefault(Duration.toSeconds(defaultLease)))

/** The sync engine and the store it writes through, with the bundled connectors. */
export const EngineLive = Layer.unwrap(
  Effect.map(Config.all([syncDeadlineSeconds, syncLeaseSeconds]), ([deadline, lease]) =>
    SyncEngine.layerWith({ deadline: Duration.seconds(deadline), lease: Duration.seconds(lease) })
  )
).pipe(
  Layer.provideMerge(PgPairStore.layer),
  Layer.provideMerge(Layer.mergeAll(Connectors.layer, RandomIds.layer, EnvironmentSecrets.layer))
)

/** The directory's rules over its PostgreSQL store; the connectors come from the engine's layer. */
const DirectoryRules = Directory.layer.pipe(Layer.provide([PgDirectoryStore.layer, PgOrganizations.layer]))

/** The directory with the bundled connectors, which check configurations: for the dashboard. */
export const DirectoryLive = DirectoryRules.pipe(Layer.provide(Connectors.layer))

/** "Sync now", limited per pair, over the engine's stores. */
const ManualSyncLive = ManualSync.layer.pipe(Layer.provide(PgDirectoryStore.layer))

export const AdminLive = Layer.mergeAll(PgOrganizations.layer, ApiKeysLive, DirectoryRules, ManualSyncLive).pipe(
  Layer.provideMerge(EngineLive)
)
