/**
 * The database's incarnation (migration 0031). A backup restored, a database copied, or a server
 * recovered to an earlier point is an earlier state of the original: its event counters stand
 * where the backup was taken, and the sequences the original gave after it would be given again,
 * to other events, so a consumer holding one of them would skip the copy's new events without a
 * word. Cursors are bare integers (the contract), so the copy cannot tell them by their form;
 * instead it opens a new incarnation: every organization's counter moves forward by `restoreGap`,
 * and the gap is recorded, so that every sequence the original may have given past the copy's
 * (up to `restoreGap - 1` of them) falls in it and is answered `cursor_expired` (`PgEventFeed`).
 *
 * What tells the original from a copy is what a copy does not carry: the cluster's system
 * identifier (a new one for each `initdb`, and so for each server restored into), the database's
 * oid (a new one for a database created to restore into, on any server), and the WAL timeline (a
 * new one after a point-in-time recovery or a replica's promotion). Each process compares them at
 * start with those the newest incarnation recorded. Not detected: a copy of the files or a
 * snapshot of the volume started as they were (the same all three): the operator declares it
 * (`database restored` in the CLI, `declare`).
 *
 * A new incarnation that was not needed costs no consumer anything: cursors up to the newest
 * sequence given stay valid, as they are the same events; the sequences jump once.
 */
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"

/**
 * How far a new incarnation moves each organization's counter: more than the events an
 * organization's original could have made after its backup (a billion, years of the busiest
 * organization's events), and little against the 2^53 a sequence may reach.
 */
export const restoreGap = 1_000_000_000

export type Reason = "first" | "detected" | "declared"

interface Identity {
  /** Null where the role may not read `pg_control_system()`. */
  readonly systemIdentifier: string | null
  readonly databaseOid: string
  readonly timeline: number
}

export interface Opened {
  readonly incarnation: number
  readonly reason: Reason
  /** The organizations whose counters moved past a gap (none for the first incarnation). */
  readonly organizations: number
}

/** Whether `current` is the database `recorded` describes; a system identifier unread on either side is not compared. */
export const sameDatabase = (recorded: Identity, current: Identity): boolean =>
  recorded.databaseOid === current.databaseOid &&
  recorded.timeline === current.timeline &&
  (recorded.systemIdentifier === null ||
    current.systemIdentifier === null ||
    recorded.systemIdentifier === current.systemIdentifier)

const identity = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // A managed server may keep the control data from the role: the oid and timeline still tell.
  const system = yield* sql<{ id: string }>`SELECT system_identifier::text AS id FROM pg_control_system()`.pipe(
    Effect.map((rows) => rows[0]?.id ?? null),
    Effect.orElseSucceed(() => null)
  )
  // The WAL file's name begins with the timeline now written, in hexadecimal: at once after a
  // promotion, where the control file's checkpoint may still name the former one.
  const [row] = yield* sql<{ oid: string; wal: string }>`
    SELECT d.oid::text AS oid, pg_walfile_name(pg_current_wal_lsn()) AS wal
    FROM pg_database d WHERE d.datname = current_database()`
  return {
    systemIdentifier: system,
    databaseOid: row!.oid,
    timeline: Number.parseInt(row!.wal.slice(0, 8), 16)
  } satisfies Identity
})

interface IncarnationRow {
  readonly incarnation: number
  readonly system_identifier: string | null
  readonly database_oid: string
  readonly timeline: number
}

const newest = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<IncarnationRow>`
    SELECT incarnation, system_identifier, database_oid::text AS database_oid, timeline
    FROM database_incarnations ORDER BY incarnation DESC LIMIT 1`
  return Option.map(Option.fromNullishOr(row), (row): Identity & { readonly incarnation: number } => ({
    incarnation: row.incarnation,
    systemIdentifier: row.system_identifier,
    databaseOid: row.database_oid,
    timeline: row.timeline
  }))
})

/**
 * In one transaction under the table's lock, so that processes starting at once on a restored
 * database open one incarnation: if `wanted` still holds of the newest one, records a new one and
 * (after the first) moves every organization's counter past a gap. The commit waits for the disk,
 * whatever the server's setting: a gap lost in a crash would let sequences be given twice.
 */
const openIf = (current: Identity, reason: Reason, wanted: (newest: Option.Option<Identity>) => boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT set_config('synchronous_commit', 'on', true)`
        yield* sql`LOCK TABLE database_incarnations IN EXCLUSIVE MODE`
        const last = yield* newest
        if (!wanted(last)) return Option.none<Opened>()
        const incarnation = Option.match(last, { onNone: () => 1, onSome: (row) => row.incarnation + 1 })
        const kind: Reason = Option.isNone(last) ? "first" : reason
        yield* sql`
          INSERT INTO database_incarnations (incarnation, system_identifier, database_oid, timeline, reason, opened_at)
          VALUES (${incarnation}, ${current.systemIdentifier}, ${current.databaseOid}, ${current.timeline}, ${kind}, now())`
        if (kind === "first") return Option.some<Opened>({ incarnation, reason: kind, organizations: 0 })
        // An organization with no event yet gets a counter too: the original may have given it some.
        yield* sql`
          INSERT INTO event_counters (org_id, last_sequence) SELECT id, 0 FROM organizations
          ON CONFLICT (org_id) DO NOTHING`
        const [moved] = yield* sql<{ organizations: string }>`
          WITH moved AS (
            UPDATE event_counters SET last_sequence = last_sequence + ${restoreGap}
            RETURNING org_id, last_sequence),
          gaps AS (
            INSERT INTO event_gaps (org_id, incarnation, after_sequence, through_sequence)
            SELECT org_id, ${incarnation}, last_sequence - ${restoreGap}, last_sequence FROM moved
            RETURNING 1)
          SELECT count(*)::text AS organizations FROM gaps`
        return Option.some<Opened>({ incarnation, reason: kind, organizations: Number(moved?.organizations ?? 0) })
      })
    )
  })

/**
 * At every start, after the migrations: records the first incarnation of a database that has
 * none, or opens a new one when the database is not the one the newest recorded.
 */
export const check = Effect.gen(function* () {
  const current = yield* identity
  const last = yield* newest
  if (Option.isSome(last) && sameDatabase(last.value, current)) return Option.none<Opened>()
  const opened = yield* openIf(current, "detected", (row) => Option.isNone(row) || !sameDatabase(row.value, current))
  if (Option.isSome(opened) && opened.value.reason === "detected") {
    yield* Effect.logWarning(
      "this database is not the one its newest incarnation recorded (restored, copied or recovered to an earlier point): opened a new incarnation; events feed cursors past this copy's newest sequence are answered cursor_expired"
    ).pipe(Effect.annotateLogs({ incarnation: opened.value.incarnation, organizations: opened.value.organizations }))
  }
  return opened
}).pipe(Effect.withSpan("Incarnation.check"))

/** The operator's word that the database is a restore, where nothing tells it: a new incarnation at once. */
export const declare = Effect.gen(function* () {
  const current = yield* identity
  const opened = yield* openIf(current, "declared", () => true)
  return Option.getOrThrow(opened)
}).pipe(Effect.withSpan("Incarnation.declare"))
