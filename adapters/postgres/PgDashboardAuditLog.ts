/**
 * `DashboardAuditLog` over PostgreSQL: the append-only `dashboard_audit` table of migration 0010.
 * Each entry is committed by its own statement before the action's answer leaves.
 */
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { OrgId, UserId } from "../../core/domain/Ids.ts"
import {
  type DashboardAction,
  type DashboardAuditEntry,
  DashboardAuditLog
} from "../../core/ports/DashboardAuditLog.ts"

interface EntryRow {
  readonly org_id: string
  readonly at: Date
  readonly user_id: string
  readonly action: DashboardAction
  readonly subject: string | null
  readonly client_address: string | null
}

export const layer = Layer.effect(
  DashboardAuditLog,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const record = (entry: DashboardAuditEntry) =>
      sql`
        INSERT INTO dashboard_audit (org_id, at, user_id, action, subject, client_address)
        VALUES (${entry.user?.orgId ?? null}, ${DateTime.toDateUtc(entry.at)}, ${entry.user?.userId ?? null},
          ${entry.action}, ${entry.subject}, ${entry.clientAddress})`.pipe(
        Effect.orDie,
        Effect.asVoid,
        Effect.withSpan("PgDashboardAuditLog.record")
      )

    const recent = (org: OrgId, limit: number) =>
      sql<EntryRow>`
        SELECT org_id, at, user_id, action, subject, client_address FROM dashboard_audit
        WHERE org_id = ${org} ORDER BY at DESC, id DESC LIMIT ${Math.max(0, limit)}`.pipe(
        Effect.orDie,
        Effect.map((rows) =>
          rows.map(
            (row): DashboardAuditEntry => ({
              at: DateTime.fromDateUnsafe(row.at),
              user: { orgId: row.org_id as OrgId, userId: row.user_id as UserId },
              action: row.action,
              subject: row.subject,
              clientAddress: row.client_address
            })
          )
        )
      )

    return DashboardAuditLog.of({ record, recent })
  })
)
