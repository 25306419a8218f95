/**
 * `AuditLog` over PostgreSQL with group commit. Entries of concurrent requests queue up; one
 * writer stores everything queued in ONE statement (the entries, and their usage as
 * `PgKeyUsageStore` counts it: the per-key daily counts and the keys' last use), then releases
 * every waiting request at once. So a response leaves only after its entry is committed, at the
 * cost of one statement per batch rather than per request.
 */
import { join } from "node:path"
import { Cause, DateTime, Deferred, Duration, Effect, Fiber, Layer, Queue } from "effect"
import { SqlClient } from "effect/sql"
import {
  type AuditEntry,
  AuditLog,
  AuditLogUnavailable,
  type AuditSearch,
  type StoredAuditEntry
} from "../../core/access/ports/AuditLog.ts"
import type { ApiKeyId, OrgId } from "../../core/shared/domain/Ids.ts"
import * as AuditSpool from "./AuditSpool.ts"
import * as Database from "./Database.ts"
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

/** Entries of answered requests this process keeps in memory for a retry; more go to the spool. */
const keptLimit = 100_000

/** How long a stop waits, by default, for the database to take the entries still kept before they are spooled. */
const defaultStopWait = Duration.seconds(5)

/** The longest pause between two tries of a kept batch while the database does not answer. */
const longestRetryPause = Duration.seconds(5)

/**
 * How long one write may take before it counts as failed: a connection that stalls without an
 * error (a network gone silent) would otherwise hold the writer, and every entry behind it, until
 * the operating system gives up on it, hours later. Its entries are then kept and written again.
 */
const defaultStalledWrite = Duration.seconds(30)

export interface Options {
  /**
   * Where entries go that the database cannot take at a stop, or past `keptLimit`: committed by
   * the next process that starts with the same folder (or this one, once the database answers).
   * Without it they are logged at error level, the one record left.
   */
  readonly spoolDir?: string | undefined
  /** How long a stop waits for the database to take what is still kept (5 seconds). */
  readonly stopWait?: Duration.Duration | undefined
  /** How long one write may take before it counts as failed (30 seconds). */
  readonly stalledWrite?: Duration.Duration | undefined
}

const make = (options: Options) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const queue = yield* Queue.unbounded<Pending>()
    /** Entries of requests already answered, none of whose writes committed yet: tried until one does. */
    const kept = yield* Queue.unbounded<AuditEntry>()
    let retrying: ReadonlyArray<AuditEntry> = []
    let writing: ReadonlyArray<Pending> = []
    /** Kept entries past `keptLimit`, spooled a batch at a time rather than a file each. */
    let overflow: Array<AuditEntry> = []

    const bounded = <A, E, R>(write: Effect.Effect<A, E, R>) =>
      write.pipe(Effect.timeout(options.stalledWrite ?? defaultStalledWrite))
    const store = (entries: ReadonlyArray<AuditEntry>) => bounded(storeJson(entries.map(toJson)))

    const storeJson = (entries: ReadonlyArray<ReturnType<typeof toJson> | AuditSpool.SpooledEntry>) => sql`
      WITH entries AS (
        SELECT * FROM json_to_recordset(${JSON.stringify(entries)}::json) AS e(
          at timestamptz, request_id text, key_id uuid, org_id uuid, method text, path text, query text,
          status smallint, duration_ms double precision, client_address text)
      ),
      logged AS (
        INSERT INTO audit_log (at, request_id, key_id, org_id, method, path, query, status, duration_ms, client_address)
        SELECT at, request_id, key_id, org_id, method, path, query, status, duration_ms, client_address FROM entries
      ),
      ${countUsage(sql)}
      SELECT 1`

    /** The last place an entry can go: a log line at error level with every field (none secret). */
    const logLost = (entries: ReadonlyArray<AuditEntry>, why: string) =>
      Effect.forEach(
        entries,
        (entry) =>
          Effect.logError(`audit entry not committed: ${why}`).pipe(Effect.annotateLogs({ auditEntry: toJson(entry) })),
        { discard: true }
      )

    const spool = (entries: ReadonlyArray<AuditEntry>, why: string) => {
      if (entries.length === 0) return Effect.void
      if (options.spoolDir === undefined) return logLost(entries, why)
      return AuditSpool.write(options.spoolDir, entries.map(toJson)).pipe(
        Effect.tap((file) =>
          Effect.logWarning(`${entries.length} audit entries spooled to disk: ${why}`).pipe(
            Effect.annotateLogs({ file })
          )
        ),
        Effect.catch(() => logLost(entries, `${why}, and the spool could not be written`))
      )
    }

    const writeBatch = Effect.gen(function* () {
      writing = yield* Queue.takeBetween(queue, 1, batchLimit)
      const outcome = yield* Effect.exit(store(writing.map((pending) => pending.entry)))
      const result =
        outcome._tag === "Success"
          ? Effect.void
          : Effect.fail(new AuditLogUnavailable({ message: "the audit log cannot be written" }))
      if (outcome._tag === "Failure") yield* Effect.logError("audit log write failed", outcome.cause)
      yield* Effect.forEach(writing, (pending) => Deferred.complete(pending.done, result), { discard: true })
      writing = []
    })
    const writer = yield* Effect.forkDetach(Effect.forever(writeBatch))

    // One batch of kept entries, tried until the database takes it; then, with nothing else
    // kept, whatever was spooled (a backlog past the limit, or an earlier process's stop).
    const keepBatch = Effect.gen(function* () {
      if (retrying.length === 0) retrying = yield* Queue.takeBetween(kept, 1, batchLimit)
      for (let attempt = 0; ; attempt++) {
        const outcome = yield* Effect.exit(
          store(retrying).pipe(
            Effect.onExit((exit) =>
              Effect.sync(() => {
                if (exit._tag === "Success") retrying = []
              })
            )
          )
        )
        if (outcome._tag === "Success") break
        if (attempt === 0)
          yield* Effect.logWarning(`${retrying.length} audit entries kept: the database did not take them, retrying`)
        yield* Effect.sleep(Duration.min(Duration.millis(200 * 2 ** Math.min(attempt, 5)), longestRetryPause))
      }
      // Room again: what overflowed is kept in memory once more, so it is not left until the stop.
      if (overflow.length > 0 && (yield* Queue.size(kept)) + overflow.length <= keptLimit) {
        yield* Queue.offerAll(kept, overflow)
        overflow = []
      }
      if (options.spoolDir !== undefined && (yield* Queue.size(kept)) === 0) yield* drainSpool(options.spoolDir)
    })

    const drainSpool = (dir: string) =>
      AuditSpool.drain(dir, (entries) => bounded(storeJson(entries))).pipe(
        Effect.tap((count) => (count > 0 ? Effect.logInfo(`${count} spooled audit entries committed`) : Effect.void))
      )

    // Nothing but a stop ends the keeper: whatever else goes wrong is logged, and it goes on.
    const keeper = yield* Effect.forkDetach(
      Effect.forever(
        keepBatch.pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.failCause(cause)
              : Effect.andThen(Effect.logError("audit keeper failed; going on", cause), Effect.sleep(longestRetryPause))
          )
        )
      )
    )
    if (options.spoolDir !== undefined) yield* Effect.forkScoped(Effect.ignore(drainSpool(options.spoolDir)))

    // At a stop the requests are answered already (the HTTP server drains before this): both
    // writers stop first, so that nothing is written twice, and what is still kept or being
    // written gets one bounded try, then the spool.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        yield* Fiber.interrupt(writer)
        yield* Fiber.interrupt(keeper)
        const unresolved = [...writing, ...(yield* Queue.clear(queue))]
        const left = [
          ...retrying,
          ...(yield* Queue.clear(kept)),
          ...overflow,
          ...unresolved.map((pending) => pending.entry)
        ]
        if (left.length > 0) {
          // A finalizer runs uninterruptibly: the write must be made interruptible for the bound to cut it.
          const flushed = yield* Effect.exit(
            Effect.interruptible(store(left)).pipe(Effect.timeout(options.stopWait ?? defaultStopWait))
          )
          if (flushed._tag === "Failure") yield* spool(left, "the database did not take them at the stop")
        }
        yield* Effect.forEach(unresolved, (pending) => Deferred.complete(pending.done, Effect.void), { discard: true })
      })
    )

    const record = Effect.fn("PgAuditLog.record")(function* (entry: AuditEntry) {
      const done = yield* Deferred.make<void, AuditLogUnavailable>()
      yield* Queue.offer(queue, { entry, done })
      return yield* Deferred.await(done)
    })

    const keep = (entry: AuditEntry) =>
      Effect.flatMap(Queue.size(kept), (size) => {
        if (size < keptLimit) return Effect.asVoid(Queue.offer(kept, entry))
        overflow.push(entry)
        if (overflow.length < batchLimit) return Effect.void
        const batch = overflow
        overflow = []
        return spool(batch, "more entries kept than memory holds")
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
      const { before, after } = query
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
          ${
            after === undefined
              ? sql``
              : sql`AND at >= ${DateTime.toDateUtc(after.at)} AND (at, id) > (${DateTime.toDateUtc(after.at)}, ${after.sequence})`
          }
        ORDER BY ${after === undefined ? sql`at DESC, id DESC` : sql`at ASC, id ASC`}
        LIMIT ${Math.max(0, query.limit)}`.pipe(Effect.orDie)
      // Going back to newer entries reads the oldest of them first; the page is still newest first.
      return (after === undefined ? rows : rows.toReversed()).map(
        (row): StoredAuditEntry => ({
          entry: toEntry(row),
          position: { at: DateTime.fromDateUnsafe(row.at), sequence: Number(row.id) }
        })
      )
    })

    const pending = Effect.map(
      Effect.all([Queue.size(queue), Queue.size(kept)]),
      ([waiting, keptCount]) => waiting + keptCount + retrying.length + overflow.length
    )

    return AuditLog.of({ record, keep, recent, search, pending })
  })

export const layerWith = (options: Options) => Layer.effect(AuditLog, make(options))

/** Without a spool: what a stop cannot commit is logged at error level (tests, the CLI). */
export const layer = layerWith({})

/** The service's: the spool is `DATA_DIR/audit-spool`, beside the embedded database's files. */
export const layerSpooled = Layer.unwrap(
  Effect.map(Database.settings, ({ dataDir }) => layerWith({ spoolDir: join(dataDir, "audit-spool") }))
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
