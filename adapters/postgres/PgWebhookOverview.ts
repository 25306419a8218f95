/**
 * `WebhookOverview` over the webhooks' tables (migration 0017), read only. The disabled endpoints
 * are one range of `webhook_endpoints_org_idx` (an organization has few endpoints), asked on every
 * signed-in dashboard page. Health reads, per endpoint, its newest deliveries by
 * `webhook_deliveries_endpoint_idx` and their attempts by `webhook_attempts_delivery_idx`, and
 * counts what waits on the partial index of due deliveries, bounded so a long backlog costs little.
 */
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import type { AttemptOutcome, DisabledReason, WebhookEndpointId } from "../../core/webhooks/domain/Webhooks.ts"
import { pendingCountCap, recentAttempts, WebhookOverview } from "../../core/webhooks/ports/WebhookOverview.ts"
import { texts } from "./PgPairRows.ts"

interface DisabledRow {
  readonly id: string
  readonly url: string
  readonly disabled_reason: string
  readonly disabled_at: Date | null
}

interface HealthRow {
  readonly id: string
  readonly last_outcome: string | null
  readonly last_at: Date | null
  readonly attempts: number
  readonly succeeded: number
  readonly pending: number
}

export const layer = Layer.effect(
  WebhookOverview,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const disabled = Effect.fn("PgWebhookOverview.disabled")(function* (org: OrgId, limit: number) {
      const rows = yield* sql<DisabledRow>`
        SELECT id, url, disabled_reason, disabled_at FROM webhook_endpoints
        WHERE org_id = ${org} AND NOT enabled ORDER BY id LIMIT ${limit}`.pipe(Effect.orDie)
      return rows.map((row) => ({
        id: row.id as WebhookEndpointId,
        url: row.url,
        reason: row.disabled_reason as DisabledReason,
        disabledAt: row.disabled_at === null ? null : DateTime.fromDateUnsafe(row.disabled_at)
      }))
    })

    const health = Effect.fn("PgWebhookOverview.health")(function* (org: OrgId, ids: ReadonlyArray<WebhookEndpointId>) {
      if (ids.length === 0) return []
      // The newest attempts are among the newest deliveries' (ids lead with their time), so the
      // attempts are read from the latest deliveries that were attempted, not from the whole log.
      const rows = yield* sql<HealthRow>`
        SELECT e.id, recent.last_outcome, recent.last_at,
          coalesce(recent.attempts, 0)::int AS attempts, coalesce(recent.succeeded, 0)::int AS succeeded,
          (SELECT count(*) FROM (
            SELECT 1 FROM webhook_deliveries d
            WHERE d.endpoint_id = e.id AND d.org_id = ${org} AND d.status IN ('pending', 'sending')
            LIMIT ${pendingCountCap}) waiting)::int AS pending
        FROM webhook_endpoints e
        LEFT JOIN LATERAL (
          SELECT (array_agg(a.outcome ORDER BY a.started_at DESC))[1] AS last_outcome, max(a.started_at) AS last_at,
            count(*) AS attempts, count(*) FILTER (WHERE a.outcome = 'succeeded') AS succeeded
          FROM (
            SELECT a.outcome, a.started_at
            FROM (
              SELECT d.id FROM webhook_deliveries d
              WHERE d.endpoint_id = e.id AND d.org_id = ${org} AND d.last_attempt_at IS NOT NULL
              ORDER BY d.id DESC LIMIT ${recentAttempts}
            ) latest
            JOIN webhook_attempts a ON a.delivery_id = latest.id AND a.org_id = ${org}
            ORDER BY a.started_at DESC LIMIT ${recentAttempts}
          ) a
        ) recent ON true
        WHERE e.org_id = ${org} AND e.id = ANY(${texts(ids)}::text[])
        ORDER BY e.id`.pipe(Effect.orDie)
      return rows.map((row) => ({
        endpointId: row.id as WebhookEndpointId,
        lastAttempt:
          row.last_outcome === null || row.last_at === null
            ? null
            : { outcome: row.last_outcome as AttemptOutcome, at: DateTime.fromDateUnsafe(row.last_at) },
        attempts: row.attempts,
        succeeded: row.succeeded,
        pending: row.pending
      }))
    })

    return WebhookOverview.of({ disabled, health })
  })
)
