/**
 * `DashboardAuditLog` over PostgreSQL: the append-only `dashboard_audit` table of migration 0010.
 * Each entry is committed by its own statement before the action's answer leaves. A position's
 * sequence is the row's identity; pages continue by `(at, id)` on the organization's index. The
 * retention deletes in a transaction that says so to the append-only trigger (migration 0018).
 */
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import {
  type DashboardAction,
  type DashboardAuditEntry,
  DashboardAuditLog,
  type DashboardAuditSearch,
  type StoredDashboardAuditEntry
} from "../../core/accounts/ports/DashboardAuditLog.ts"
import type { OrgId, UserId } from "../../core/shared/domain/Ids.ts"
import { isUuid } from "./Uuid.ts"

interface EntryRow {
  readonly id: string
  readonly org_id: string
  readonly at: Date
  readonly user_id: string | null
  readonly action: DashboardAction
  readonly subject: string | null
  readonly client_address: string | null
}

const toEntry = (row: EntryRow): DashboardAuditEntry => ({
  at: DateTime.fromDateUnsafe(row.at),
  user: { orgId: row.org_id as OrgId, userId: row.user_id as UserId | null },
  action: row.action,
  subject: row.subject,
  clientAddress: row.client_address
})

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
        SELECT id, org_id, at, user_id, action, subject, client_address FROM dashboard_audit
        WHERE org_id = ${org} ORDER BY at DESC, id DESC LIMIT ${Math.max(0, limit)}`.pipe(
        Effect.orDie,
        Effect.map((rows) => rows.map(toEntry))
      )

    const search = (query: DashboardAuditSearch) => {
      if (!isUuid(query.orgId) || (query.userId !== undefined && !isUuid(query.userId))) {
        return Effect.succeed<ReadonlyArray<StoredDashboardAuditEntry>>([])
      }
      const conditions = [
        sql`org_id = ${query.orgId}`,
        ...(query.action === undefined ? [] : [sql`action = ${query.action}`]),
        ...(query.userId === undefined ? [] : [sql`user_id = ${query.userId}`]),
        ...(query.before === undefined
          ? []
          : [sql`(at, id) < (${DateTime.toDateUtc(query.before.at)}, ${query.before.sequence})`])
      ]
      return sql<EntryRow>`
        SELECT id, org_id, at, user_id, action, subject, client_address FROM dashboard_audit
        WHERE ${sql.and(conditions)} ORDER BY at DESC, id DESC LIMIT ${Math.max(0, query.limit)}`.pipe(
        Effect.orDie,
        Effect.map((rows) =>
          rows.map((row) => ({
            entry: toEntry(row),
            position: { at: DateTime.fromDateUnsafe(row.at), sequence: Number(row.id) }
          }))
        ),
        Effect.withSpan("PgDashboardAuditLog.search")
      )
    }

    const prune = (before: DateTime.Utc) =>
      Effect.gen(function* () {
        yield* sql`SELECT set_config('dashboard_audit.pruning', 'on', true)`
        const removed =
          yield* sql`DELETE FROM dashboard_audit WHERE at < ${DateTime.toDateUtc(before)} RETURNING 1 AS one`
        return removed.length
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("PgDashboardAuditLog.prune"))

    return DashboardAuditLog.of({ record, recent, search, prune })
  })
)
