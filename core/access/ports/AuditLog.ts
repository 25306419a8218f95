/**
 * The audit log: every request, accepted or refused, with who made it and how it was answered,
 * never the key itself. `record` completes only once the entry is durably stored, so a response
 * can wait for it; usage per key is counted from the same entries, as `KeyUsageStore` counts it.
 */
import { Context, type DateTime, type Effect, Schema } from "effect"
import type { ApiKeyId, OrgId } from "../../shared/domain/Ids.ts"

export interface AuditEntry {
  readonly at: DateTime.Utc
  readonly requestId: string
  /** Null where no valid key was presented. */
  readonly keyId: ApiKeyId | null
  readonly orgId: OrgId | null
  readonly method: string
  readonly path: string
  /** The raw query string, without `?`. */
  readonly query: string
  readonly status: number
  readonly durationMs: number
  readonly clientAddress: string | null
}

/** Where an entry stands in the log's order: its time, then the order in which it was stored. */
export interface AuditPosition {
  readonly at: DateTime.Utc
  readonly sequence: number
}

export interface StoredAuditEntry {
  readonly entry: AuditEntry
  readonly position: AuditPosition
}

/** The first digit of a status: 2 for 2xx and so on. */
export type StatusClass = 2 | 3 | 4 | 5

/**
 * One organization's entries in a time window, narrowed by what is set. The window is required:
 * the log is kept in monthly partitions of time, and a bounded window reads only its months.
 */
export interface AuditSearch {
  readonly orgId: OrgId
  /** From this instant, inclusive. */
  readonly since: DateTime.Utc
  /** Up to this instant, exclusive. */
  readonly until: DateTime.Utc
  readonly keyId?: ApiKeyId | undefined
  readonly statusClass?: StatusClass | undefined
  /** The path equal to `value`, or starting with it. */
  readonly path?: { readonly value: string; readonly match: "exact" | "prefix" } | undefined
  readonly requestId?: string | undefined
  /** Only entries before this position (the last one of the previous page). */
  readonly before?: AuditPosition | undefined
  /**
   * Only entries after this position (the first one of the page before, going back to newer
   * ones): the `limit` oldest of them, still returned newest first.
   */
  readonly after?: AuditPosition | undefined
  readonly limit: number
}

export class AuditLogUnavailable extends Schema.TaggedError<AuditLogUnavailable>()("AuditLogUnavailable", {
  message: Schema.String
}) {}

export class AuditLog extends Context.Service<
  AuditLog,
  {
    /** Stores the entry; succeeds once it is committed, fails (nothing kept) when it cannot be. */
    readonly record: (entry: AuditEntry) => Effect.Effect<void, AuditLogUnavailable>
    /**
     * Takes the entry of a request answered without its entry committed (the write took too long,
     * or failed and the request was refused instead): committed as soon as the log can take it,
     * tried again until then, and not dropped by a stop.
     */
    readonly keep: (entry: AuditEntry) => Effect.Effect<void>
    /** Entries waiting to be committed, kept ones included. */
    readonly pending: Effect.Effect<number>
    /** The most recent entries, newest first, of one organization or of all. */
    readonly recent: (options: {
      readonly orgId?: OrgId | undefined
      readonly limit: number
    }) => Effect.Effect<ReadonlyArray<AuditEntry>>
    /** The organization's entries matching every filter set, newest first (by position), up to the limit. */
    readonly search: (query: AuditSearch) => Effect.Effect<ReadonlyArray<StoredAuditEntry>>
  }
>()("core/AuditLog") {}
