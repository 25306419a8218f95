/**
 * `AuditLog` over PostgreSQL with group commit. Entries of concurrent requests queue up; one
 * writer stores everything queued in ONE statement (the entries, and their usage as
 * `PgKeyUsageStore` counts it: the per-key daily counts and the keys' last use), then releases
 * every waiting request at once. So a response leaves only after its entry is committed, at the
 * cost of one statement per batch rather than per request.
 */
import { DateTime, Deferred, Duration, Effect, Layer, Queue } from "effect"
import { SqlClient } from "effect/sql"
import type { ApiKeyId, OrgId } from "../../core/domain/Ids.ts"
import {
  type AuditEntry,
  AuditLog,
  AuditLogUnavailable,
  type AuditSearch,
  type StoredAuditEntry
} from "../../core/ports/AuditLog.ts"
import { countUsage } from "./PgKeyUsageStore.ts"

interface Pending {
  readonly entry: AuditEntry
  readonly done: Deferred.Deferred<void, AuditLogUnavailable>
}

interface AuditRow {
  readonly at: Date
  readonly request_id: string
  readonly key_id: string | null
  readonly org_id: string | null
  readonly method: string
  readonly path: string
  readonly query: string
  readonly status: number
  readonly duration_ms: number
  readonly client_address: string | null
}

/** The most entries one statement stores; a larger backlog is written in several. */
const batchLimit = 1_000

const toEntry = (row: AuditRow): AuditEntry => ({
  at: DateTime.fromDateUnsafe(row.at),
  requestId: row.request_id,
  keyId: row.key_id as ApiKeyId | null,
  orgId: row.org_id as OrgId | null,
  method: row.method,
  path: row.path,
  query: row.query,
  status: row.status,
  durationMs: row.duration_ms,
  clientAddress: row.client_address
})

const toJson = (entry: AuditEntry) => ({
  at: DateTime.formatIso(entry.at),
  request_id: entry.requestId,
  key_id: entry.keyId,
  org_id: entry.orgId,
  method: entry.method,
  path: entry.path,
  query: entry.query,
  status: entry.status,
  duration_ms: entry.durationMs,
  client_address: entry.clientAddress
})

export const layer = Layer.effect(
  AuditLog,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const queue = yield* Queue.unbounded<Pending>()

    const store = (entries: ReadonlyArray<AuditEntry>) => sql`
      WITH entries AS (
        SELECT * FROM json_to_recordset(${JSON.stringify(entries.map(toJson))}::json) AS e(
          at timestamptz, request_id text, key_id uuid, org_id uuid, method text, path text, query text,
          status smallint, duration_ms double precision, client_address text)
      ),
      logged AS (
        INSERT INTO audit_log (at, request_id, key_id, org_id, method, path, query, status, duration_ms, client_address)
        SELECT at, request_id, key_id, org_id, method, path, query, status, duration_ms, client_address FROM entries
      ),
      ${countUsage(sql)}
      SELECT 1`

    const writeBatch = Effect.gen(function* () {
      const batch = yield* Queue.takeBetween(queue, 1, batchLimit)
      const outcome = yield* Effect.exit(store(batch.map((pending) => pending.entry)))
      const result =
        outcome._tag === "Success"
          ? Effect.void
          : Effect.fail(new AuditLogUnavailable({ message: "the audit log cannot be written" }))
      if (outcome._tag === "Failure") yield* Effect.logError("audit log write failed", outcome.cause)
      yield* Effect.forEach(batch, (pending) => Deferred.complete(pending.done, result), { discard: true })
    })
    yield* Effect.forkScoped(Effect.forever(writeBatch))

    const record = Effect.fn("PgAuditLog.record")(function* (entry: AuditEntry) {
      const done = yield* Deferred.make<void, AuditLogUnavailable>()
      yield* Queue.offer(queue, { entry, done })
      return yield* Deferred.await(done)
    })

    const recent = Effect.fn("PgAuditLog.recent")(function* (options: {
      readonly orgId?: string | undefined
      readonly limit: number
    }) {
      const rows = yield* sql<AuditRow>`
        SELECT at, request_id, key_id, org_id, method, path, query, status, duration_ms, client_address
        FROM audit_log ${options.orgId === undefined ? sql`` : sql`WHERE org_id = ${options.orgId}`}
        ORDER BY at DESC, id DESC LIMIT ${options.limit}`.pipe(Effect.orDie)
      return rows.map(toEntry)
    })

    // `at` bounds the partitions read (the table is partitioned by it); within them the
    // `(org_id, at DESC, id DESC)` index of migration 0011 yields the page in order, so a page
    // reads about `limit` rows whatever the filters that follow.
    const search = Effect.fn("PgAuditLog.search")(function* (query: AuditSearch) {
      const before = query.before
      const rows = yield* sql<AuditRow & { readonly id: string }>`
        SELECT id, at, request_id, key_id, org_id, method, path, query, status, duration_ms, client_address
        FROM audit_log
        WHERE org_id = ${query.orgId}
          AND at >= ${DateTime.toDateUtc(query.since)} AND at < ${DateTime.toDateUtc(query.until)}
          ${query.keyId === undefined ? sql`` : sql`AND key_id = ${query.keyId}`}
          ${
            query.statusClass === undefined
              ? sql``
              : sql`AND status >= ${query.statusClass * 100} AND status < ${query.statusClass * 100 + 100}`
          }
          ${
            query.path === undefined
              ? sql``
              : query.path.match === "exact"
                ? sql`AND path = ${query.path.value}`
                : sql`AND starts_with(path, ${query.path.value})`
          }
          ${query.requestId === undefined ? sql`` : sql`AND request_id = ${query.requestId}`}
          ${
            before === undefined
              ? sql``
              : sql`AND at <= ${DateTime.toDateUtc(before.at)} AND (at, id) < (${DateTime.toDateUtc(before.at)}, ${before.sequence})`
          }
        ORDER BY at DESC, id DESC LIMIT ${Math.max(0, query.limit)}`.pipe(Effect.orDie)
      return rows.map(
        (row): StoredAuditEntry => ({
          entry: toEntry(row),
          position: { at: DateTime.fromDateUnsafe(row.at), sequence: Number(row.id) }
        })
      )
    })

    return AuditLog.of({ record, recent, search, pending: Queue.size(queue) })
  })
)

/** Months of partitions kept ready ahead of now, so that no entry waits for one. */
export const monthsAhead = 3

/**
 * Applies the audit log's retention: creates the coming months' partitions, and drops every
 * partition whose entries are all older than `retention`. Dropping a whole partition is the only
 * way entries ever leave the log. Returns what it created and dropped.
 */
export const maintainPartitions = (retention: Duration.Duration) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ readonly partition: string; readonly action: "created" | "dropped" }>`
      SELECT partition, action FROM audit_log_maintain(
        ${Duration.toMillis(retention)} * interval '1 millisecond', ${monthsAhead})`
  }).pipe(Effect.orDie, Effect.withSpan("PgAuditLog.maintainPartitions"))
