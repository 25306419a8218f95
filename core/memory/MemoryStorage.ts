/**
 * Every storage port in memory, over one fresh `MemoryState`: the one layer an embedder provides
 * to run the whole flow without a database (create an integration, sync it, list its receivables,
 * read its events; create a key, verify it, count its usage). The ports that are not storage
 * (portal connectors, secrets, password hashing, one-time codes, ids) are the embedder's to
 * provide. Also provides the twins' seeding services. Depends on `effect` and core only.
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
import * as ReceivableStore from "./ReceivableStore.ts"
import * as SessionStore from "./SessionStore.ts"
import * as ShownOnceStore from "./ShownOnceStore.ts"

export const layer = Layer.mergeAll(
  Organizations.layerMemory,
  ApiKeyStore.layerMemory,
  KeyUsageStore.layerMemory,
  AuditLog.layerMemory,
  DirectoryStore.layerMemory,
  PairStore.layerMemory,
  EventFeed.layerMemory,
  ReceivableStore.layerMemory,
  DashboardUserStore.layerMemory,
  SessionStore.layerMemory,
  ShownOnceStore.layerMemory,
  DashboardAuditLog.layerMemory,
  RateLimitStore.layerMemory,
  InFlightStore.layerMemory
).pipe(Layer.provideMerge(MemoryState.layer))
