/**
 * The audit log: every request, accepted or refused, with who made it and how it was answered,
 * never the key itself. `record` completes only once the entry is durably stored, so a response
 * can wait for it; usage per key is counted from the same entries.
 */
import { Context, type DateTime, type Effect, Schema } from "effect"
import type { ApiKeyId, OrgId } from "../domain/Ids.ts"

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

export class AuditLogUnavailable extends Schema.TaggedError<AuditLogUnavailable>()("AuditLogUnavailable", {
  message: Schema.String
}) {}

export class AuditLog extends Context.Service<
  AuditLog,
  {
    /** Stores the entry; succeeds once it is committed. */
    readonly record: (entry: AuditEntry) => Effect.Effect<void, AuditLogUnavailable>
    /** Entries waiting to be committed. */
    readonly pending: Effect.Effect<number>
    /** The most recent entries, newest first, of one organization or of all. */
    readonly recent: (options: {
      readonly orgId?: OrgId | undefined
      readonly limit: number
    }) => Effect.Effect<ReadonlyArray<AuditEntry>>
  }
>()("core/AuditLog") {}
