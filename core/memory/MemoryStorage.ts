/**
 * Every storage port in memory, over fresh tables: the memory world's assembly, above the contexts
 * (each context's twins keep their tables in a state service of their own, and this is the one
 * place that provides them all together): the one layer an embedder provides
 * to run the whole flow without a database (create an integration, sync it, list its receivables,
 * read its events; create a key, verify it, count its usage; deliver webhooks; run the dashboard's
 * accounts, search and overviews). The ports that are not storage (portal connectors, the webhook
 * sender and crypto, secrets, password hashing, common passwords, one-time codes, ids, readiness)
 * are the embedder's to provide; `test/core/memory/StoragePorts.test.ts` holds the rule and that
 * every storage port is here. Also provides the twins' seeding services. Depends on `effect` and
 * core only.
 */
import { Layer } from "effect"
import { AccessState } from "../access/memory/AccessState.ts"
import * as ApiKeyStore from "../access/memory/ApiKeyStore.ts"
import * as AuditLog from "../access/memory/AuditLog.ts"
import * as InFlightShareStore from "../access/memory/InFlightShareStore.ts"
import * as InFlightStore from "../access/memory/InFlightStore.ts"
import * as KeyUsageStore from "../access/memory/KeyUsageStore.ts"
import * as RateLimitStore from "../access/memory/RateLimitStore.ts"
import { AccountsState } from "../accounts/memory/AccountsState.ts"
import * as DashboardAuditLog from "../accounts/memory/DashboardAuditLog.ts"
import * as SecondFactorStore from "../accounts/memory/SecondFactorStore.ts"
import * as SessionStore from "../accounts/memory/SessionStore.ts"
import * as ShownOnceStore from "../accounts/memory/ShownOnceStore.ts"
import * as SignInThrottleStore from "../accounts/memory/SignInThrottleStore.ts"
import * as UserStore from "../accounts/memory/UserStore.ts"
import * as DirectoryStore from "../receivables/memory/DirectoryStore.ts"
import * as EventFeed from "../receivables/memory/EventFeed.ts"
import * as PairStore from "../receivables/memory/PairStore.ts"
import * as ReceivableSearch from "../receivables/memory/ReceivableSearch.ts"
import * as ReceivableStore from "../receivables/memory/ReceivableStore.ts"
import { ReceivablesState } from "../receivables/memory/ReceivablesState.ts"
import * as Organizations from "../shared/memory/Organizations.ts"
import { OrganizationsState } from "../shared/memory/OrganizationsState.ts"
import * as WebhookDeliveryStore from "../webhooks/memory/WebhookDeliveryStore.ts"
import * as WebhookEndpointStore from "../webhooks/memory/WebhookEndpointStore.ts"
import * as WebhookOverview from "../webhooks/memory/WebhookOverview.ts"
import { WebhooksState } from "../webhooks/memory/WebhooksState.ts"

/**
 * Every context's tables, fresh and empty: what a twin alone requires. Twins provided over one
 * `states` read each other's writes, as tables of one database do.
 */
export const states = Layer.mergeAll(
  OrganizationsState.layer,
  ReceivablesState.layer,
  AccessState.layer,
  AccountsState.layer,
  WebhooksState.layer
)

export const layer = Layer.mergeAll(
  Organizations.layerMemory,
  ApiKeyStore.layerMemory,
  KeyUsageStore.layerMemory,
  AuditLog.layerMemory,
  DirectoryStore.layerMemory,
  PairStore.layerMemory,
  EventFeed.layerMemory,
  ReceivableStore.layerMemory,
  ReceivableSearch.layerMemory,
  UserStore.layerMemory,
  SecondFactorStore.layerMemory,
  SessionStore.layerMemory,
  ShownOnceStore.layerMemory,
  SignInThrottleStore.layerMemory,
  // Never asked over the twin, which is always reached; the throttles require one all the same.
  SignInThrottleStore.layerStandIn(),
  DashboardAuditLog.layerMemory,
  RateLimitStore.layerMemory,
  InFlightStore.layerMemory,
  InFlightShareStore.layerMemory,
  WebhookEndpointStore.layerMemory,
  WebhookDeliveryStore.layerMemory,
  WebhookOverview.layerMemory
).pipe(Layer.provideMerge(states))
