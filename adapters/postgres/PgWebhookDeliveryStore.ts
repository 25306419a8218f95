/**
 * `WebhookDeliveryStore` over PostgreSQL (migration 0017): `webhook_deliveries` and
 * `webhook_attempts`, with the endpoints' cursor and health in `webhook_endpoints`, whose other
 * columns `PgWebhookEndpointStore` writes. Every statement on an organization's rows filters by
 * `org_id`. Claims take two statements in one transaction: the first locks endpoints
 * with due deliveries (`FOR UPDATE SKIP LOCKED`, so workers never wait on each other), ranked by
 * turns per organization (`row_number() OVER (PARTITION BY org_id ...)`), the second,
 * with a snapshot taken after those locks, counts each endpoint's attempts in flight and leases
 * what its cap leaves, round robin over organizations and their endpoints; so the cap holds across
 * processes and no organization's backlog holds back another's. The transaction ends before any request
 * is sent. Secrets are read only where a delivery is signed.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { EventType, StoredEvent } from "../../core/receivables/domain/Events.ts"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import {
  type AttemptTrigger,
  type SubscribableEventType,
  type WebhookEndpointId,
  WebhookOrganizationBusy
} from "../../core/webhooks/domain/Webhooks.ts"
import {
  type AttemptResult,
  type BehindEndpoint,
  type Claim,
  type ClaimedDelivery,
  type DeliveryFilter,
  type Lease,
  type NewDelivery,
  type WaitingBounds,
  WebhookDeliveryStore
} from "../../core/webhooks/ports/WebhookDeliveryStore.ts"
import { texts } from "./PgPairRows.ts"
import {
  type AttemptRow,
  type DeliveryRow,
  deliveryColumns,
  type SecretsRow,
  toAttempt,
  toDelivery,
  toSecrets
} from "./PgWebhookRows.ts"

const date = DateTime.toDateUtc

// Finished deliveries removed per statement by retention: each statement's locks stay small.
const pruneSlice = 1000

export const layer = Layer.effect(
  WebhookDeliveryStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const deliveryFields = sql.literal(deliveryColumns)

    const insertDeliveries = (
      org: OrgId,
      endpoint: WebhookEndpointId,
      deliveries: ReadonlyArray<NewDelivery>,
      at: DateTime.Utc,
      lease: Lease | undefined
    ) =>
      sql<DeliveryRow>`
        INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, sequence, body, status,
          next_attempt_at, lease_owner, created_at, next_trigger)
        SELECT d.id, ${org}, ${endpoint}, d.event_id, d.event_type, d.sequence::bigint, d.body,
          ${lease === undefined ? "pending" : "sending"}, coalesce(${lease === undefined ? null : date(lease.until)}, d.due_at::timestamptz),
          ${lease?.owner ?? null}, ${date(at)}, d.next_trigger
        FROM unnest(${texts(deliveries.map((d) => d.id))}::text[], ${texts(deliveries.map((d) => d.eventId))}::text[],
          ${texts(deliveries.map((d) => d.eventType))}::text[],
          ${texts(deliveries.map((d) => (d.sequence === null ? null : String(d.sequence))))}::text[],
          ${texts(deliveries.map((d) => d.body))}::text[],
          ${texts(deliveries.map((d) => DateTime.formatIso(d.dueAt)))}::text[],
          ${texts(deliveries.map((d) => d.trigger))}::text[])
          AS d (id, event_id, event_type, sequence, body, due_at, next_trigger)
        RETURNING ${deliveryFields}`

    // Replays and fan-out of one organization take turns on its row while they count what waits
    // and add to it, so that two at once cannot both pass a bound. `NO KEY UPDATE` leaves the row
    // free to the foreign-key checks of other writes; the counts are statements of their own, so
    // under READ COMMITTED they see what the lock's previous holder added.
    const lockOrganization = (org: OrgId) => sql`SELECT 1 FROM organizations WHERE id = ${org} FOR NO KEY UPDATE`

    // Through the endpoints' due index: an organization has a handful of endpoints.
    const waitingOf = (org: OrgId) =>
      Effect.map(
        sql<{ waiting: number }>`
          SELECT count(*)::int AS waiting FROM webhook_endpoints e JOIN webhook_deliveries d ON d.endpoint_id = e.id
          WHERE e.org_id = ${org} AND d.org_id = ${org} AND d.status IN ('pending', 'sending')`,
        ([row]) => row!.waiting
      )

    // A replay's deliveries share their endpoint and their making; one is in flight while any of
    // them waits for its first attempt (its trigger is still `replay`).
    const replaysOf = (org: OrgId) =>
      Effect.map(
        sql<{ replays: number }>`
          SELECT count(DISTINCT (d.endpoint_id, d.created_at))::int AS replays
          FROM webhook_endpoints e JOIN webhook_deliveries d ON d.endpoint_id = e.id
          WHERE e.org_id = ${org} AND d.org_id = ${org} AND d.status IN ('pending', 'sending')
            AND d.next_trigger = 'replay'`,
        ([row]) => row!.replays
      )

    const withinBounds = (org: OrgId, adding: number, bounds: WaitingBounds) =>
      Effect.gen(function* () {
        if ((yield* replaysOf(org)) >= bounds.maxReplays) {
          return yield* new WebhookOrganizationBusy({ bound: "replays", limit: bounds.maxReplays })
        }
        if ((yield* waitingOf(org)) + adding > bounds.maxWaiting) {
          return yield* new WebhookOrganizationBusy({ bound: "waiting", limit: bounds.maxWaiting })
        }
      })

    const checkBounds = (org: OrgId, adding: number, bounds: WaitingBounds) =>
      withinBounds(org, adding, bounds).pipe(Effect.catchTag("SqlError", Effect.die))

    const enqueue = Effect.fn("PgWebhookDeliveryStore.enqueue")(
      function* (
        org: OrgId,
        id: WebhookEndpointId,
        deliveries: ReadonlyArray<NewDelivery>,
        options: { readonly at: DateTime.Utc; readonly bounds?: WaitingBounds | undefined }
      ) {
        const bounds = options.bounds
        if (bounds !== undefined) yield* lockOrganization(org)
        // The endpoint's row stays locked until the deliveries are in: none goes to a removed one.
        const own = yield* sql`SELECT 1 FROM webhook_endpoints WHERE org_id = ${org} AND id = ${id} FOR SHARE`
        if (own.length === 0 || deliveries.length === 0) return []
        if (bounds !== undefined) yield* withinBounds(org, deliveries.length, bounds)
        const rows = yield* insertDeliveries(org, id, deliveries, options.at, undefined)
        const order = new Map(deliveries.map((d, i) => [d.id as string, i]))
        return rows.map(toDelivery).sort((a, b) => order.get(a.id)! - order.get(b.id)!)
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    const enqueueClaimed = Effect.fn("PgWebhookDeliveryStore.enqueueClaimed")(function* (
      org: OrgId,
      id: WebhookEndpointId,
      delivery: NewDelivery,
      options: { readonly at: DateTime.Utc; readonly lease: Lease }
    ) {
      return yield* sql
        .withTransaction(
          Effect.gen(function* () {
            // A claim as a worker's is: the endpoint's row locked first, then a new statement whose
            // snapshot sees every claim committed before the lock counts the attempts in flight.
            const own = yield* sql`SELECT 1 FROM webhook_endpoints WHERE org_id = ${org} AND id = ${id} FOR UPDATE`
            if (own.length === 0) return Option.none()
            const [held] = yield* sql<{ count: string }>`
              SELECT count(*)::text AS count FROM webhook_deliveries
              WHERE org_id = ${org} AND endpoint_id = ${id} AND status = 'sending' AND next_attempt_at > ${date(options.at)}`
            if (Number(held!.count) >= options.lease.perEndpoint) return "busy" as const
            const [row] = yield* insertDeliveries(org, id, [delivery], options.at, options.lease)
            return Option.some(toDelivery(row!))
          })
        )
        .pipe(Effect.orDie)
    })

    const eventsBetween = Effect.fn("PgWebhookDeliveryStore.eventsBetween")(function* (
      org: OrgId,
      window: {
        readonly from: DateTime.Utc
        readonly until: DateTime.Utc
        readonly types: ReadonlyArray<SubscribableEventType>
        readonly limit: number
      }
    ) {
      // Batches committed since `from` hold every event created since (a sync commits after it
      // writes), found by the batches' index on their commit time.
      const rows = yield* sql<{
        batch: string
        ordinal: string
        sequence: string
        type: EventType
        created_at: Date
        data: unknown
      }>`
        SELECT b.id::text AS batch, e.ordinal::text AS ordinal, (b.first_sequence + e.ordinal - 1)::text AS sequence,
          e.type, e.created_at, e.data
        FROM event_batches b JOIN events e ON e.batch = b.id
        WHERE b.org_id = ${org} AND e.org_id = ${org} AND b.committed_at >= ${date(window.from)}
          AND e.created_at >= ${date(window.from)} AND e.created_at < ${date(window.until)}
          AND e.type = ANY(${texts(window.types)}::text[])
        ORDER BY b.last_sequence, e.ordinal
        LIMIT ${window.limit}`.pipe(Effect.orDie)
      return rows.map(
        (row): StoredEvent => ({
          batch: BigInt(row.batch),
          ordinal: Number(row.ordinal),
          sequence: Number(row.sequence),
          type: row.type,
          createdAt: DateTime.fromDateUnsafe(row.created_at),
          data: row.data
        })
      )
    })

    const deliveries = Effect.fn("PgWebhookDeliveryStore.deliveries")(function* (
      org: OrgId,
      endpoint: WebhookEndpointId,
      filter: DeliveryFilter
    ) {
      const rows = yield* sql<DeliveryRow>`
        SELECT ${deliveryFields} FROM webhook_deliveries
        WHERE org_id = ${org} AND endpoint_id = ${endpoint}
          ${filter.status === undefined ? sql`` : sql`AND status = ${filter.status}`}
          ${filter.eventType === undefined ? sql`` : sql`AND event_type = ${filter.eventType}`}
          ${filter.after === undefined ? sql`` : sql`AND id < ${filter.after}`}
        ORDER BY id DESC LIMIT ${filter.limit + 1}`.pipe(Effect.orDie)
      return { items: rows.slice(0, filter.limit).map(toDelivery), hasMore: rows.length > filter.limit }
    })

    // By its primary key, then its organization: a delivery is found by its id alone.
    const delivery = Effect.fn("PgWebhookDeliveryStore.delivery")(function* (org: OrgId, id: string) {
      const [row] = yield* sql<DeliveryRow & { readonly body: string }>`
        SELECT ${deliveryFields}, body FROM webhook_deliveries WHERE org_id = ${org} AND id = ${id}`.pipe(Effect.orDie)
      if (row === undefined) return Option.none()
      const attempts = yield* sql<AttemptRow>`
        SELECT id, delivery_id, trigger, started_at, duration_ms, outcome, response_status, response_body, error
        FROM webhook_attempts WHERE org_id = ${org} AND delivery_id = ${id} ORDER BY id`.pipe(Effect.orDie)
      return Option.some({ delivery: toDelivery(row), attempts: attempts.map(toAttempt), body: row.body })
    })

    const retry = Effect.fn("PgWebhookDeliveryStore.retry")(function* (org: OrgId, id: string, at: DateTime.Utc) {
      // An attempt in flight is left alone: the row is answered as it is. A manual retry already
      // waiting holds the schedule as it stood before it.
      const [row] = yield* sql<DeliveryRow>`
        WITH retried AS (
          UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${date(at)}, next_trigger = 'manual_retry',
            resume_at = CASE WHEN next_trigger = 'manual_retry' THEN resume_at
              WHEN status = 'pending' THEN next_attempt_at END
          WHERE org_id = ${org} AND id = ${id} AND status <> 'sending'
          RETURNING ${deliveryFields})
        SELECT * FROM retried
        UNION ALL
        SELECT ${deliveryFields} FROM webhook_deliveries
        WHERE org_id = ${org} AND id = ${id} AND status = 'sending'`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(row), toDelivery)
    })

    const behind = Effect.fn("PgWebhookDeliveryStore.behind")(function* (limit: number) {
      const rows = yield* sql<{ org_id: string; id: string; cursor: string; event_types: ReadonlyArray<string> }>`
        SELECT e.org_id, e.id, e.cursor::text AS cursor, e.event_types
        FROM webhook_endpoints e JOIN event_counters c ON c.org_id = e.org_id
        WHERE e.enabled AND e.cursor < c.last_sequence
        ORDER BY e.fanned_out_at LIMIT ${limit}`.pipe(Effect.orDie)
      return rows.map(
        (row): BehindEndpoint => ({
          orgId: row.org_id as OrgId,
          id: row.id as WebhookEndpointId,
          cursor: Number(row.cursor),
          eventTypes: row.event_types as ReadonlyArray<SubscribableEventType>
        })
      )
    })

    const advance = Effect.fn("PgWebhookDeliveryStore.advance")(function* (
      org: OrgId,
      id: WebhookEndpointId,
      move: { readonly from: number; readonly to: number; readonly at: DateTime.Utc; readonly maxWaiting: number },
      made: ReadonlyArray<NewDelivery>
    ) {
      return yield* sql
        .withTransaction(
          Effect.gen(function* () {
            let taken = made
            let to = move.to
            if (made.length > 0) {
              yield* lockOrganization(org)
              const room = Math.max(0, move.maxWaiting - (yield* waitingOf(org)))
              if (room < made.length) {
                taken = made.slice(0, room)
                const last = taken.at(-1)?.sequence
                if (last === undefined || last === null) {
                  // No room: the cursor stays and the endpoint goes to the back of the line, so
                  // that the organization's other endpoints, and other organizations', go on.
                  yield* sql`
                    UPDATE webhook_endpoints SET fanned_out_at = ${date(move.at)}
                    WHERE org_id = ${org} AND id = ${id} AND cursor = ${move.from}`
                  return false
                }
                to = last
              }
            }
            const moved = yield* sql`
              UPDATE webhook_endpoints SET cursor = ${to}, fanned_out_at = ${date(move.at)}
              WHERE org_id = ${org} AND id = ${id} AND cursor = ${move.from}
              RETURNING id`
            if (moved.length === 0) return false
            if (taken.length > 0) yield* insertDeliveries(org, id, taken, move.at, undefined)
            return true
          })
        )
        .pipe(Effect.orDie)
    })

    const claim = Effect.fn("PgWebhookDeliveryStore.claim")(function* (request: Claim) {
      const now = date(request.now)
      // This worker's attempts of each organization, and those it may hold no more of: their
      // endpoints are not even locked.
      const heldOrgs = [...request.held.keys()].map((org) => org.toLowerCase())
      const heldCounts = [...request.held.values()].map(String)
      const full = heldOrgs.filter((_, i) => Number(heldCounts[i]) >= request.perOrganization)
      return yield* sql
        .withTransaction(
          Effect.gen(function* () {
            // Endpoints take turns by organization: each organization's endpoint that came due
            // first, then each one's second, so that one organization's many endpoints cannot hold
            // every claim while another's wait.
            const locked = yield* sql<{ id: string }>`
              WITH due AS (
                SELECT e.id, e.org_id, o.oldest FROM webhook_endpoints e
                CROSS JOIN LATERAL (
                  SELECT min(d.next_attempt_at) AS oldest FROM webhook_deliveries d
                  WHERE d.endpoint_id = e.id AND d.status IN ('pending', 'sending') AND d.next_attempt_at <= ${now}) o
                WHERE e.enabled AND o.oldest IS NOT NULL AND e.org_id::text <> ALL(${texts(full)}::text[])),
              turns AS (
                SELECT id, oldest, row_number() OVER (PARTITION BY org_id ORDER BY oldest, id) AS turn FROM due)
              SELECT e.id FROM webhook_endpoints e JOIN turns t ON t.id = e.id
              WHERE e.enabled
              ORDER BY t.turn, t.oldest, t.id
              LIMIT ${request.limit}
              FOR UPDATE OF e SKIP LOCKED`
            if (locked.length === 0) return []
            // A new statement, so a new snapshot: it sees every claim committed before the locks.
            const rows = yield* sql<
              DeliveryRow & {
                org_id: string
                url: string
                body: string
                next_trigger: AttemptTrigger
                failing_since: Date | null
                manual_attempts: number
                resume_at: Date | null
                event_committed_at: Date | null
              } & SecretsRow
            >`
              WITH candidates AS (
                SELECT d.id, e.org_id, l.ord, d.place FROM unnest(${texts(locked.map((row) => row.id))}::text[])
                  WITH ORDINALITY AS l (id, ord)
                JOIN webhook_endpoints e ON e.id = l.id
                CROSS JOIN LATERAL (
                  SELECT d.id, row_number() OVER (ORDER BY d.attempts = 0, d.next_attempt_at, d.sequence NULLS FIRST) AS place
                  FROM webhook_deliveries d
                  WHERE d.endpoint_id = l.id AND d.status IN ('pending', 'sending') AND d.next_attempt_at <= ${now}
                  ORDER BY d.attempts = 0, d.next_attempt_at, d.sequence NULLS FIRST
                  LIMIT greatest(0, ${request.perEndpoint} - (
                    SELECT count(*) FROM webhook_deliveries f
                    WHERE f.endpoint_id = l.id AND f.status = 'sending' AND f.next_attempt_at > ${now}))) d),
              held AS (
                SELECT h.org_id, h.count::int AS count
                FROM unnest(${texts(heldOrgs)}::text[], ${texts(heldCounts)}::text[]) AS h (org_id, count)),
              -- Round robin: an organization's endpoints in turn within it, the organizations in turn,
              -- each organization to what this worker may hold of it.
              ranked AS (
                SELECT c.id, row_number() OVER (PARTITION BY c.org_id ORDER BY c.place, c.ord) AS turn,
                  min(c.ord) OVER (PARTITION BY c.org_id) AS org_ord, coalesce(h.count, 0) AS held
                FROM candidates c LEFT JOIN held h ON h.org_id = c.org_id::text),
              picked AS (
                SELECT id, turn, org_ord FROM ranked
                WHERE turn <= ${request.perOrganization} - held
                ORDER BY turn, org_ord
                LIMIT ${request.limit}),
              claimed AS (
                UPDATE webhook_deliveries d SET status = 'sending', lease_owner = ${request.owner},
                  next_attempt_at = ${date(request.leaseUntil)}
                FROM picked WHERE d.id = picked.id
                RETURNING d.*)
              SELECT c.id, c.endpoint_id, c.event_id, c.event_type, c.sequence::text AS sequence, c.status, c.attempts,
                c.next_attempt_at, c.last_attempt_at, c.created_at, c.org_id, c.body, c.next_trigger, c.manual_attempts,
                c.resume_at, e.url, e.failing_since, e.secret, e.previous_secret, e.previous_secret_expires_at,
                -- The event's batch, for the delivery's lag: one probe of the batches' (org, last) index.
                -- Only for a delivery fan-out made and the schedule alone attempted: a replay or a
                -- manual retry is asked for long after the commit, and would time the asking.
                CASE WHEN c.manual_attempts = 0 AND (c.next_trigger = 'scheduled' OR (c.next_trigger = 'retry'
                  AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = c.id AND a.trigger = 'replay')))
                THEN (SELECT b.committed_at FROM event_batches b
                  WHERE b.org_id = c.org_id AND b.last_sequence >= c.sequence AND b.first_sequence <= c.sequence
                  ORDER BY b.last_sequence LIMIT 1) END AS event_committed_at
              FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id JOIN picked p ON p.id = c.id
              ORDER BY p.turn, p.org_ord`
            return rows.map(
              (row): ClaimedDelivery => ({
                delivery: toDelivery(row),
                orgId: row.org_id as OrgId,
                url: row.url,
                body: row.body,
                secrets: toSecrets(row),
                trigger: row.next_trigger,
                failingSince: row.failing_since === null ? null : DateTime.fromDateUnsafe(row.failing_since),
                scheduledAttempts: row.attempts - row.manual_attempts,
                resumeAt: row.resume_at === null ? null : DateTime.fromDateUnsafe(row.resume_at),
                eventCommittedAt:
                  row.event_committed_at === null ? null : DateTime.fromDateUnsafe(row.event_committed_at)
              })
            )
          })
        )
        .pipe(Effect.orDie)
    })

    // One statement: the outcome costs a worker one round trip. Nothing is changed when the lease
    // was lost (it ran out and another worker holds the delivery): `done` is then empty.
    const complete = Effect.fn("PgWebhookDeliveryStore.complete")(function* (result: AttemptResult) {
      const { attempt, next, endpoint } = result
      const started = date(attempt.startedAt)
      const health =
        endpoint.health === "healthy"
          ? sql`failing_since = NULL`
          : endpoint.health === "failing"
            ? sql`failing_since = coalesce(e.failing_since, ${started}::timestamptz)`
            : sql`failing_since = coalesce(e.failing_since, ${started}::timestamptz), enabled = false,
                disabled_reason = CASE WHEN e.enabled THEN ${endpoint.reason} ELSE e.disabled_reason END,
                disabled_at = CASE WHEN e.enabled THEN ${started}::timestamptz ELSE e.disabled_at END,
                updated_at = CASE WHEN e.enabled THEN ${started}::timestamptz ELSE e.updated_at END`
      // A healthy endpoint's row is written only when it was failing: most outcomes change none.
      const needed = endpoint.health === "healthy" ? sql`AND e.failing_since IS NOT NULL` : sql``
      // `was_enabled` is the endpoint as it stood before this change. Disabling, its row is read
      // locked, so of two workers disabling it at once the second reads the first's commit: one
      // attempt, and one only, is answered as the one that disabled it.
      const lock = endpoint.health === "disable" ? sql`FOR UPDATE OF e` : sql``
      const changed = yield* sql<{ was_enabled: boolean }>`
        WITH done AS (
          UPDATE webhook_deliveries SET status = ${next.status}, attempts = attempts + 1, last_attempt_at = ${started},
            next_attempt_at = ${next.status === "pending" ? date(next.dueAt) : null}, lease_owner = NULL,
            next_trigger = 'retry', resume_at = NULL,
            manual_attempts = manual_attempts + ${attempt.trigger === "manual_retry" ? 1 : 0}
          WHERE org_id = ${result.orgId} AND id = ${attempt.deliveryId} AND status = 'sending'
            AND lease_owner = ${result.owner}
          RETURNING endpoint_id),
        recorded AS (
          INSERT INTO webhook_attempts (id, delivery_id, org_id, trigger, started_at, duration_ms, outcome,
            response_status, response_body, error)
          SELECT ${attempt.id}, ${attempt.deliveryId}, ${result.orgId}, ${attempt.trigger}, ${started},
            ${attempt.durationMs}, ${attempt.outcome}, ${attempt.responseStatus}::int, ${attempt.responseBody}::text,
            ${attempt.error}::text
          FROM done
          RETURNING 1),
        before AS (
          SELECT e.id, e.enabled FROM webhook_endpoints e JOIN done ON e.id = done.endpoint_id
          WHERE e.org_id = ${result.orgId} ${lock})
        UPDATE webhook_endpoints e SET ${health}
        FROM before WHERE e.org_id = ${result.orgId} AND e.id = before.id ${needed}
        RETURNING before.enabled AS was_enabled`.pipe(Effect.orDie)
      return { disabledEndpoint: endpoint.health === "disable" && changed.some((row) => row.was_enabled) }
    })

    // Through the partial due index, read no further than the cap. A disabled endpoint's deliveries
    // are parked, not waiting: counted, one tenant's dead receiver would hold the gauge at the cap.
    const waiting = (cap: number) =>
      sql<{ waiting: number }>`
        SELECT count(*)::int AS waiting FROM (
          SELECT 1 FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled
          WHERE d.status IN ('pending', 'sending') LIMIT ${cap}) w`.pipe(
        Effect.map(([row]) => row!.waiting),
        Effect.orDie
      )

    const prune = Effect.fn("PgWebhookDeliveryStore.prune")(function* (before: {
      readonly finishedBefore: DateTime.Utc
      readonly waitingBefore: DateTime.Utc
    }) {
      let removed = 0
      for (;;) {
        const rows = yield* sql`
          DELETE FROM webhook_deliveries WHERE id IN (
            SELECT id FROM webhook_deliveries
            WHERE status IN ('succeeded', 'failed') AND created_at < ${date(before.finishedBefore)}
            ORDER BY created_at LIMIT ${pruneSlice})
          RETURNING 1`.pipe(Effect.orDie)
        removed += rows.length
        if (rows.length < pruneSlice) break
      }
      // Disabled endpoints are few; their waiting deliveries are found by the due index.
      for (;;) {
        const rows = yield* sql`
          DELETE FROM webhook_deliveries WHERE id IN (
            SELECT d.id FROM webhook_endpoints e JOIN webhook_deliveries d ON d.endpoint_id = e.id
            WHERE NOT e.enabled AND d.status IN ('pending', 'sending') AND d.created_at < ${date(before.waitingBefore)}
            LIMIT ${pruneSlice})
          RETURNING 1`.pipe(Effect.orDie)
        removed += rows.length
        if (rows.length < pruneSlice) return removed
      }
    })

    return WebhookDeliveryStore.of({
      checkBounds,
      enqueue,
      enqueueClaimed,
      eventsBetween,
      deliveries,
      delivery,
      retry,
      behind,
      advance,
      claim,
      complete,
      waiting,
      prune
    })
  })
)
