/**
 * `EventFeed` over PostgreSQL (migration 0009). An event's sequence is its batch's first sequence
 * plus its ordinal less one; a page walks the organization's batches in sequence order and, in
 * each, its events by ordinal, both by index, so a page costs the same at any depth.
 *
 * A restored database's new incarnation (`Incarnation.ts`) leaves a gap in each organization's
 * sequences: a position inside one is another incarnation's, and is refused as expired.
 *
 * Syncs commit without waiting for the disk (`PgPairSession`), so an event can be visible before
 * it is durable, and a crash could then hand its sequence out again under a reader that has passed
 * it. So no event is answered before it is durable: once a read has its rows, if the WAL is not
 * flushed up to where it is now written (which lies past every commit the read saw), the reader
 * makes a durable commit of its own, whose flush covers them. Readers pay that, at most one disk
 * flush a read and only while syncs write; a sync would pay it every time.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { EventType, StoredEvent } from "../../core/receivables/domain/Events.ts"
import {
  EventCursorAhead,
  EventCursorExpired,
  EventFeed,
  type EventsAfter
} from "../../core/receivables/ports/EventFeed.ts"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import { texts } from "./PgPairRows.ts"

interface EventRow {
  readonly batch: string
  readonly ordinal: string
  readonly sequence: string
  readonly type: EventType
  readonly created_at: Date
  readonly data: unknown
}

const toEvent = (row: EventRow): StoredEvent => ({
  batch: BigInt(row.batch),
  ordinal: Number(row.ordinal),
  sequence: Number(row.sequence),
  type: row.type,
  createdAt: DateTime.fromDateUnsafe(row.created_at),
  data: row.data
})

// Batches removed per statement by retention: each statement's locks and undo stay small.
const pruneSlice = 200

export const layer = Layer.effect(
  EventFeed,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // A write that takes no lock a reader could wait on for long: the counter row of an
    // organization with events, which a sync locks only while it commits (migration 0013).
    const durable = (org: OrgId) =>
      Effect.gen(function* () {
        const [wal] = yield* sql<{ flushed: boolean }>`
          SELECT pg_current_wal_flush_lsn() >= pg_current_wal_insert_lsn() AS flushed`
        if (wal?.flushed !== false) return
        yield* sql.withTransaction(
          Effect.andThen(
            sql`SELECT set_config('synchronous_commit', 'on', true)`,
            sql`UPDATE event_counters SET last_sequence = last_sequence WHERE org_id = ${org}`
          )
        )
      }).pipe(Effect.orDie, Effect.withSpan("PgEventFeed.durable"))

    const after = Effect.fn("PgEventFeed.after")(function* (org: OrgId, request: EventsAfter) {
      const fetch = request.limit + 1
      // Without a position, from the start: what retention removed is gone, so it is the oldest kept.
      const position = request.after ?? 0
      const typeFilter = request.types === undefined ? sql`` : sql`AND e.type = ANY(${texts(request.types)}::text[])`
      // One statement, so the page and the newest sequence come from one snapshot. The counter's
      // row is always returned (the page joins onto it), even when the page is empty.
      const rows = yield* sql<
        Partial<EventRow> & {
          readonly latest: string | null
          readonly pruned: string | null
          readonly gap_through: string | null
        }
      >`
        WITH counter AS (
          SELECT coalesce(max(last_sequence), 0) AS latest, coalesce(max(pruned_through), 0) AS pruned,
            (SELECT max(through_sequence) FROM event_gaps
             WHERE org_id = ${org} AND after_sequence < ${position} AND through_sequence > ${position}) AS gap_through
          FROM event_counters WHERE org_id = ${org}),
        page AS (
          SELECT b.id::text AS batch, e.ordinal::text AS ordinal, (b.first_sequence + e.ordinal - 1)::text AS sequence,
            e.type, e.created_at, e.data, b.last_sequence AS batch_order, e.ordinal AS event_order
          FROM (
            SELECT id, first_sequence, last_sequence FROM event_batches
            WHERE org_id = ${org} AND last_sequence > ${position}
            ORDER BY last_sequence) b
          CROSS JOIN LATERAL (
            SELECT e.ordinal, e.type, e.created_at, e.data FROM events e
            WHERE e.batch = b.id AND e.ordinal > ${position} - b.first_sequence + 1 ${typeFilter}
            ORDER BY e.ordinal LIMIT ${fetch}) e
          ORDER BY b.last_sequence, e.ordinal
          LIMIT ${fetch})
        SELECT counter.latest::text AS latest, counter.pruned::text AS pruned, counter.gap_through::text AS gap_through,
          page.*
        FROM counter LEFT JOIN page ON true
        ORDER BY page.batch_order, page.event_order`.pipe(Effect.orDie)
      const latestSequence = Number(rows[0]?.latest ?? 0)
      const prunedThrough = Number(rows[0]?.pruned ?? 0)
      if (request.after !== undefined && request.after < prunedThrough) {
        return yield* new EventCursorExpired({ after: request.after, reason: "retention", through: prunedThrough })
      }
      // A sequence this incarnation never gave: the page after it would skip what the other gave.
      const gapThrough = rows[0]?.gap_through
      if (request.after !== undefined && gapThrough !== null && gapThrough !== undefined) {
        return yield* new EventCursorExpired({ after: request.after, reason: "restore", through: Number(gapThrough) })
      }
      if (position > latestSequence) return yield* new EventCursorAhead({ after: position, latestSequence })
      const events = rows
        .filter((row) => row.batch !== null && row.batch !== undefined)
        .map((row) => toEvent(row as EventRow))
      if (events.length > 0) yield* durable(org)
      return { events: events.slice(0, request.limit), hasMore: events.length > request.limit, latestSequence }
    })

    const find = Effect.fn("PgEventFeed.find")(function* (
      org: OrgId,
      place: { readonly batch: bigint; readonly ordinal: number }
    ) {
      const rows = yield* sql<EventRow>`
        SELECT b.id::text AS batch, e.ordinal::text AS ordinal, (b.first_sequence + e.ordinal - 1)::text AS sequence,
          e.type, e.created_at, e.data
        FROM events e JOIN event_batches b ON b.id = e.batch
        WHERE e.batch = ${place.batch.toString()}::bigint AND e.ordinal = ${place.ordinal} AND b.org_id = ${org}
          AND e.org_id = ${org}`.pipe(Effect.orDie)
      if (rows.length > 0) yield* durable(org)
      return Option.map(Option.fromNullishOr(rows[0]), toEvent)
    })

    // Removes whole batches, oldest first, and moves each organization's `pruned_through` past
    // them, so that a cursor into the removed range is told so rather than silently skipping.
    const prune = Effect.fn("PgEventFeed.prune")(function* (before: DateTime.Utc) {
      let removed = 0
      for (;;) {
        const [row] = yield* sql<{ batches: string; events: string }>`
          WITH gone AS (
            DELETE FROM event_batches WHERE id IN (
              SELECT id FROM event_batches WHERE committed_at < ${DateTime.toDateUtc(before)}
              ORDER BY committed_at LIMIT ${pruneSlice})
            RETURNING id, org_id, last_sequence),
          events_gone AS (DELETE FROM events WHERE batch IN (SELECT id FROM gone) RETURNING 1),
          moved AS (
            UPDATE event_counters c SET pruned_through = greatest(c.pruned_through, g.through)
            FROM (SELECT org_id, max(last_sequence) AS through FROM gone GROUP BY org_id) g
            WHERE c.org_id = g.org_id)
          SELECT (SELECT count(*) FROM gone)::text AS batches, (SELECT count(*) FROM events_gone)::text AS events`.pipe(
          Effect.orDie
        )
        removed += Number(row?.events ?? 0)
        if (Number(row?.batches ?? 0) < pruneSlice) return removed
      }
    })

    return EventFeed.of({ after, find, prune })
  })
)
