/**
 * Partner Receivables core: the receivables domain as plain Effect code. Embed it in your own
 * service; it depends on `effect` alone. Storage, HTTP and portals are ports here and adapters
 * elsewhere: implement the ports, or use the bundled PostgreSQL adapters.
 */

// The HTTP contract, shared by servers, typed clients and the OpenAPI document.
export * as Api from "./api/Api.ts"
export * as ApiClient from "./api/ApiClient.ts"
export * as ApiErrors from "./api/Errors.ts"
export * as EventsApi from "./api/EventsApi.ts"
export * as ApiQuery from "./api/Query.ts"
export * as ApiSecurity from "./api/Security.ts"
export * as Wire from "./api/Wire.ts"
// The domain: values, resources, statuses, history, paging, sync planning.
export * as ApiKey from "./domain/ApiKey.ts"
export * as Dashboard from "./domain/Dashboard.ts"
export * as Events from "./domain/Events.ts"
export * as History from "./domain/History.ts"
export * as Ids from "./domain/Ids.ts"
export * as ListQuery from "./domain/ListQuery.ts"
export * as Pagination from "./domain/Pagination.ts"
export * as PairSync from "./domain/PairSync.ts"
export * as PortalValues from "./domain/PortalValues.ts"
export * as RateLimit from "./domain/RateLimit.ts"
export * as Resources from "./domain/Resources.ts"
export * as Status from "./domain/Status.ts"
export * as SyncSchedule from "./domain/SyncSchedule.ts"
export * as Values from "./domain/Values.ts"

// In-memory twins of the storage ports, for embedders and tests.
export * as MemoryApiKeyStore from "./memory/ApiKeyStore.ts"
export * as MemoryAuditLog from "./memory/AuditLog.ts"
export * as MemoryDashboardAuditLog from "./memory/DashboardAuditLog.ts"
export * as MemoryDashboardUserStore from "./memory/DashboardUserStore.ts"
export * as MemoryDirectoryStore from "./memory/DirectoryStore.ts"
export * as MemoryOrganizations from "./memory/Organizations.ts"
export * as MemoryPairStore from "./memory/PairStore.ts"
export * as MemoryReceivableStore from "./memory/ReceivableStore.ts"
export * as MemorySessionStore from "./memory/SessionStore.ts"

// What the core needs from the outside.
export * as ApiKeyStore from "./ports/ApiKeyStore.ts"
export * as AuditLog from "./ports/AuditLog.ts"
export * as DashboardAuditLog from "./ports/DashboardAuditLog.ts"
export * as DashboardUserStore from "./ports/DashboardUserStore.ts"
export * as DirectoryStore from "./ports/DirectoryStore.ts"
export * as EventFeed from "./ports/EventFeed.ts"
export * as IdSource from "./ports/IdSource.ts"
export * as Organizations from "./ports/Organizations.ts"
export * as PairStore from "./ports/PairStore.ts"
export * as PasswordHasher from "./ports/PasswordHasher.ts"
export * as PortalConnector from "./ports/PortalConnector.ts"
export * as Readiness from "./ports/Readiness.ts"
export * as ReceivableStore from "./ports/ReceivableStore.ts"
export * as Secrets from "./ports/Secrets.ts"
export * as SessionStore from "./ports/SessionStore.ts"

// Services composed from the ports.
export * as ApiKeys from "./services/ApiKeys.ts"
export * as DashboardAccess from "./services/DashboardAccess.ts"
export * as DashboardKeys from "./services/DashboardKeys.ts"
export * as Directory from "./services/Directory.ts"
export * as EventsService from "./services/Events.ts"
export * as Receivables from "./services/Receivables.ts"
export * as Scheduler from "./services/Scheduler.ts"
export * as SyncEngine from "./services/SyncEngine.ts"
export * as VerifiedKeyCache from "./services/VerifiedKeyCache.ts"
