/**
 * Every storage port in memory, over one fresh `MemoryState`: the one layer an embedder provides
 * to run the whole flow without a database (create an integration, sync it, list its receivables,
 * read its events; create a key, verify it, count its usage; deliver webhooks; run the dashboard's
 * accounts, search and overviews). The ports that are not storage (portal connectors, the webhook
 * sender and crypto, secrets, password hashing, common passwords, one-time codes, ids, readiness)
 * are the embedder's to provide; `test/core/memory/StoragePorts.test.ts` holds the rule and that
 * every storage port is here. Also provides the twins' seeding services. Depends on `effect` and
 * core only.
 */
import { Layer } from "effect"
import * as ApiKeyStore from "./ApiKeyStore.ts"
import * as AuditLog from "./AuditLog.ts"
import * as DashboardAuditLog from "./DashboardAuditLog.ts"
import * as DashboardUserStore from "./DashboardUserStore.ts"
import * as DirectoryStore from "./DirectoryStore.ts"
import * as EventFeed from "./EventFeed.ts"
import * as InFlightStore from "./InFlightStore.ts"
import * as KeyUsageStore from "./KeyUsageStore.ts"
import { MemoryState } from "./MemoryState.ts"
import * as Organizations from "./Organizations.ts"
import * as PairStore from "./PairStore.ts"
import * as RateLimitStore from "./RateLimitStore.ts"
import * as ReceivableSearch from "./ReceivableSearch.ts"
import * as ReceivableStore from "./ReceivableStore.ts"
import * as SessionStore from "./SessionStore.ts"
import * as ShownOnceStore from "./ShownOnceStore.ts"
import * as SignInThrottleStore from "./SignInThrottleStore.ts"
import * as WebhookOverview from "./WebhookOverview.ts"
import * as WebhookStore from "./WebhookStore.ts"

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
  DashboardUserStore.layerMemory,
  SessionStore.layerMemory,
  ShownOnceStore.layerMemory,
  SignInThrottleStore.layerMemory,
  DashboardAuditLog.layerMemory,
  RateLimitStore.layerMemory,
  InFlightStore.layerMemory,
  WebhookStore.layerMemory,
  WebhookOverview.layerMemory
).pipe(Layer.provideMerge(MemoryState.layer))
