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
import * as ApiKeyStore from "../access/memory/ApiKeyStore.ts"
import * as AuditLog from "../access/memory/AuditLog.ts"
import * as InFlightStore from "../access/memory/InFlightStore.ts"
import * as KeyUsageStore from "../access/memory/KeyUsageStore.ts"
import * as RateLimitStore from "../access/memory/RateLimitStore.ts"
import * as DashboardAuditLog from "../accounts/memory/DashboardAuditLog.ts"
import * as DashboardUserStore from "../accounts/memory/DashboardUserStore.ts"
import * as SessionStore from "../accounts/memory/SessionStore.ts"
import * as ShownOnceStore from "../accounts/memory/ShownOnceStore.ts"
import * as SignInThrottleStore from "../accounts/memory/SignInThrottleStore.ts"
import * as DirectoryStore from "../receivables/memory/DirectoryStore.ts"
import * as EventFeed from "../receivables/memory/EventFeed.ts"
import * as PairStore from "../receivables/memory/PairStore.ts"
import * as ReceivableSearch from "../receivables/memory/ReceivableSearch.ts"
import * as ReceivableStore from "../receivables/memory/ReceivableStore.ts"
import * as Organizations from "../shared/memory/Organizations.ts"
import * as WebhookOverview from "../webhooks/memory/WebhookOverview.ts"
import * as WebhookStore from "../webhooks/memory/WebhookStore.ts"
import { MemoryState } from "./MemoryState.ts"

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
