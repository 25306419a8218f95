/**
 * The one state every memory twin reads and writes: the PostgreSQL schema's tables as maps, so
 * that what one twin writes the others read, as they would in the database (a sync's receivables
 * in the receivables list and the events feed, a key created through one twin verified through
 * another, a request's usage on its key). `MemoryStorage.layer` provides every twin over one
 * fresh state; a twin alone requires it. Rows are keyed by ids in lower case, as PostgreSQL's
 * `uuid` type compares them. Depends on `effect` and core only.
 */
import { Context, type DateTime, type Duration, Effect, Layer, PubSub, type Redacted, type Semaphore } from "effect"
import type { ApiKeyRecord } from "../access/ports/ApiKeyStore.ts"
import type { StoredAuditEntry } from "../access/ports/AuditLog.ts"
import type { KeyUsageDay } from "../access/ports/KeyUsageStore.ts"
import type { DashboardAuditEntry } from "../accounts/ports/DashboardAuditLog.ts"
import type { Credentials, Invite, SecondFactor } from "../accounts/ports/DashboardUserStore.ts"
import type { Session } from "../accounts/ports/SessionStore.ts"
import type { HeldSecret } from "../accounts/ports/ShownOnceStore.ts"
import type { StoredEvent } from "../receivables/domain/Events.ts"
import type { PlannedEvent } from "../receivables/domain/PairSync.ts"
import type { Changes, ReceivableState } from "../receivables/domain/Resources.ts"
import type { DebtorRecord, SyncRunRecord, VendorRecord } from "../receivables/ports/DirectoryStore.ts"
import type { Organization } from "../shared/ports/Organizations.ts"
import type { AttemptTrigger, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from "../webhooks/domain/Webhooks.ts"
import type { SealedSecrets } from "../webhooks/ports/WebhookStore.ts"

/** A vendor-debtor pair (`integrations`): what the directory, the sync and the read path know of it. */
export interface PairRow {
  readonly id: string
  readonly orgId: string
  readonly vendorId: string
  readonly debtorId: string
  readonly connector: string
  readonly config: unknown
  readonly interval: Duration.Duration
  /** The pair's own sync deadline; null for the engine's default. */
  readonly deadline: Duration.Duration | null
  readonly paused: boolean
  /** The planned next sync, kept while paused (nothing claims or shows a paused pair's). */
  readonly nextSyncAt: DateTime.Utc | null
  readonly lease?: { readonly owner: string; readonly expiresAt: DateTime.Utc } | undefined
  readonly lastOutcome: "succeeded" | "failed" | null
  readonly lastError: string | null
  readonly consecutiveFailures: number
  /** When an operator's manual sync of the pair last began. */
  readonly manualSyncAt?: DateTime.Utc | undefined
  /** Set while a sync of the pair is in flight: the read path's watermark stays before it. */
  readonly syncStartedAt: DateTime.Utc | null
  /** One sync of the pair at a time. */
  readonly lock: Semaphore.Semaphore
}

export interface ReceivableRow {
  readonly id: string
  readonly orgId: string
  readonly pairId: string
  readonly documentKey: string
  readonly state: ReceivableState
  readonly detectedAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

export interface HistoryRow {
  readonly changedAt: DateTime.Utc
  readonly changes: Changes
  /** The order in which entries were written, across every receivable. */
  readonly written: number
}

/** A run of a pair as `sync_runs` records it, with the quarantined documents it kept. */
export interface RunRow extends SyncRunRecord {
  readonly worker: string
}

/** An event of an organization's feed, with the time its sync finished. */
export interface EventRow extends StoredEvent {
  readonly committedAt: DateTime.Utc
}

export interface FeedRow {
  readonly events: Array<EventRow>
  latestSequence: number
  prunedThrough: number
}

export interface HeldSignIn {
  readonly userKey: string
  readonly expiresAt: DateTime.Utc
}

/** A webhook endpoint (`webhook_endpoints`), with its sealed secrets and its place in the feed. */
export interface WebhookEndpointRow {
  endpoint: WebhookEndpoint
  secrets: SealedSecrets
  /** The newest sequence fanned out to it. */
  cursor: number
  failingSince: DateTime.Utc | null
}

/** A delivery of an event to an endpoint (`webhook_deliveries`), with its attempts. */
export interface WebhookDeliveryRow {
  delivery: WebhookDelivery
  readonly orgId: string
  readonly body: string
  lease: { readonly owner: string; readonly until: DateTime.Utc } | null
  readonly attempts: Array<WebhookAttempt>
  /** What its next attempt will be recorded as having been made by. */
  nextTrigger: AttemptTrigger
  /** Attempts made by manual retries, beside the schedule's. */
  manualAttempts: number
  /** While a manual retry waits: when the schedule's next attempt was due (none: it had ended). */
  resumeAt: DateTime.Utc | null
}

export interface Tables {
  readonly organizations: Map<string, Organization>
  readonly apiKeys: Map<string, ApiKeyRecord>
  /** Key ids by the hex of their digest. */
  readonly apiKeyDigests: Map<string, string>
  /** Revoked keys' ids, announced to every subscriber as the database's trigger does. */
  readonly revocations: PubSub.PubSub<string>
  /** By `rowKey(org, key)`, then by UTC day (`YYYY-MM-DD`), as `api_key_usage` is read. */
  readonly keyUsage: Map<string, Map<string, KeyUsageDay>>
  readonly auditLog: Array<StoredAuditEntry>
  readonly vendors: Map<string, VendorRecord>
  readonly debtors: Map<string, DebtorRecord>
  readonly pairs: Map<string, PairRow>
  /**
   * The ids of each organization's pairs, as `integrations` is indexed by `org_id`: what a twin
   * reads of one organization it finds without scanning every organization's rows.
   */
  readonly orgPairs: Map<string, Set<string>>
  /** By `rowKey(org, id)`: receivable ids are unique per organization, as the table's key is. */
  readonly receivables: Map<string, ReceivableRow>
  /** A pair's receivables: their row keys by document key. */
  readonly documents: Map<string, Map<string, string>>
  /** A receivable's entries by its row key, in the order written. */
  readonly history: Map<string, Array<HistoryRow>>
  /** Per pair, in the order recorded. */
  readonly runs: Map<string, Array<RunRow>>
  /** Per pair, the events its syncs wrote, in the order written (the outbox, before numbering). */
  readonly pairEvents: Map<string, Array<PlannedEvent>>
  readonly feeds: Map<string, FeedRow>
  /** Invites by the hex of their token's digest. */
  readonly invites: Map<string, Invite>
  /** Users with their password hash, by e-mail address (one user per address). */
  readonly users: Map<string, Credentials>
  /** By `rowKey(org, user)`. */
  readonly secondFactors: Map<string, SecondFactor>
  /** Removed users' removal, by `rowKey(org, user)`; the user stays in `users`. */
  readonly removedUsers: Map<string, DateTime.Utc>
  /** Second-factor secrets proposed and not yet confirmed, by `rowKey(org, user)`. */
  readonly pendingSecrets: Map<string, Redacted.Redacted<string>>
  /** Unused recovery codes' digests, by their hex, by `rowKey(org, user)`. */
  readonly recoveryCodes: Map<string, Map<string, Uint8Array>>
  /** By the hex of their token's digest. */
  readonly heldSignIns: Map<string, HeldSignIn>
  /**
   * Sign-in attempts' times (epoch milliseconds) by throttle (the policy's name), then by key, as
   * `sign_in_attempts` keeps them; a key's place in its map is the order of its latest write.
   */
  readonly signInAttempts: Map<string, Map<string, Array<number>>>
  /** The addresses that signed in to an account, by account, the most recent last. */
  readonly trustedAddresses: Map<string, Array<string>>
  /** By the hex of their token's digest. */
  readonly sessions: Map<string, Session>
  /** Secrets held for a page that shows them once, by the hex of their handle's digest. */
  readonly shownOnce: Map<string, HeldSecret>
  readonly dashboardAudit: Array<DashboardAuditEntry>
  /** Rate limits' TATs in epoch milliseconds, by the limit's name, as `rate_limits` keeps them. */
  readonly rateLimits: Map<string, number>
  /** Requests in flight per key and per organization, as `requests_in_flight` counts its rows. */
  readonly inFlightByKey: Map<string, number>
  readonly inFlightByOrganization: Map<string, number>
  /** Webhook endpoints by id. */
  readonly webhookEndpoints: Map<string, WebhookEndpointRow>
  /** Webhook deliveries by id. */
  readonly webhookDeliveries: Map<string, WebhookDeliveryRow>
  /** Each endpoint's deliveries' ids, as `webhook_deliveries_endpoint_idx` finds them. */
  readonly endpointDeliveries: Map<string, Set<string>>
  /** A counter for the order of writes where rows need one (history entries). */
  written: number
}

/** An id as the tables key it: UUIDs compare without regard to case. */
export const idKey = <A extends string>(id: A): A => id.toLowerCase() as A

/** The key of a row whose id is unique within its organization. */
export const rowKey = (org: string, id: string) => `${idKey(org)}/${idKey(id)}`

/** Text in code point order, as PostgreSQL's C collation (the embedded server's) orders it. */
export const compareText = (a: string, b: string): number => {
  const x = Array.from(a, (c) => c.codePointAt(0)!)
  const y = Array.from(b, (c) => c.codePointAt(0)!)
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!
  return x.length - y.length
}

/** Stores a receivable row, or replaces it, and indexes it under its pair's document key. */
export const putReceivable = (tables: Tables, row: ReceivableRow) => {
  const at = rowKey(row.orgId, row.id)
  tables.receivables.set(at, row)
  const documents = tables.documents.get(row.pairId) ?? new Map<string, string>()
  tables.documents.set(row.pairId, documents)
  documents.set(row.documentKey, at)
}

/** Appends a history entry of a receivable, numbered in the order of all writes. */
export const addHistory = (tables: Tables, at: string, entry: Omit<HistoryRow, "written">) => {
  tables.written += 1
  const row = { ...entry, written: tables.written }
  const entries = tables.history.get(at)
  if (entries === undefined) tables.history.set(at, [row])
  else entries.push(row)
}

/** Stores a pair's row, or replaces it, and indexes it under its organization. */
export const putPair = (tables: Tables, row: PairRow) => {
  const was = tables.pairs.get(row.id)
  if (was !== undefined && was.orgId !== row.orgId) tables.orgPairs.get(was.orgId)?.delete(row.id)
  tables.pairs.set(row.id, row)
  const ids = tables.orgPairs.get(row.orgId)
  if (ids === undefined) tables.orgPairs.set(row.orgId, new Set([row.id]))
  else ids.add(row.id)
}

/** The organization's pairs, in the order they were stored. */
export const pairsOf = (tables: Tables, org: string): Array<PairRow> =>
  Array.from(tables.orgPairs.get(idKey(org)) ?? [], (id) => tables.pairs.get(id)!)

/** The pair's receivables, in the order they were first stored. */
export const receivablesOf = (tables: Tables, pairId: string): Array<ReceivableRow> =>
  Array.from(tables.documents.get(pairId)?.values() ?? [], (at) => tables.receivables.get(at)!)

/** The endpoint's deliveries, in the order they were stored. */
export const deliveriesOf = (tables: Tables, endpointId: string): Array<WebhookDeliveryRow> =>
  Array.from(tables.endpointDeliveries.get(endpointId) ?? [], (id) => tables.webhookDeliveries.get(id)!)

/** Changes the pair's row, which is replaced rather than changed in place. */
export const updatePair = (tables: Tables, id: string, change: Partial<PairRow>) => {
  const row = tables.pairs.get(id)
  if (row !== undefined) tables.pairs.set(id, { ...row, ...change })
}

/** Records a run of the pair, after its earlier ones. */
export const addRun = (tables: Tables, pairId: string, run: RunRow) => {
  const runs = tables.runs.get(pairId)
  if (runs === undefined) tables.runs.set(pairId, [run])
  else runs.push(run)
}

/** The organization's feed, created empty on first use. */
export const feedOf = (tables: Tables, org: string): FeedRow => {
  const found = tables.feeds.get(idKey(org))
  if (found !== undefined) return found
  const feed: FeedRow = { events: [], latestSequence: 0, prunedThrough: 0 }
  tables.feeds.set(idKey(org), feed)
  return feed
}

export class MemoryState extends Context.Service<MemoryState, Tables>()("core/memory/MemoryState") {
  /** A fresh, empty state each time the layer is built. */
  static readonly layer: Layer.Layer<MemoryState> = Layer.effect(
    MemoryState,
    Effect.map(PubSub.unbounded<string>(), (revocations) =>
      MemoryState.of({
        organizations: new Map(),
        apiKeys: new Map(),
        apiKeyDigests: new Map(),
        revocations,
        keyUsage: new Map(),
        auditLog: [],
        vendors: new Map(),
        debtors: new Map(),
        pairs: new Map(),
        orgPairs: new Map(),
        receivables: new Map(),
        documents: new Map(),
        history: new Map(),
        runs: new Map(),
        pairEvents: new Map(),
        feeds: new Map(),
        invites: new Map(),
        users: new Map(),
        secondFactors: new Map(),
        removedUsers: new Map(),
        pendingSecrets: new Map(),
        recoveryCodes: new Map(),
        heldSignIns: new Map(),
        signInAttempts: new Map(),
        trustedAddresses: new Map(),
        sessions: new Map(),
        shownOnce: new Map(),
        dashboardAudit: [],
        rateLimits: new Map(),
        inFlightByKey: new Map(),
        inFlightByOrganization: new Map(),
        webhookEndpoints: new Map(),
        webhookDeliveries: new Map(),
        endpointDeliveries: new Map(),
        written: 0
      })
    )
  )
}
