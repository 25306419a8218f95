/**
 * `SessionStore` over PostgreSQL: the `dashboard_sessions` table of migration 0010, one row per
 * session under the SHA-256 of its token. Changes filter on the organization as well as the
 * digest, so a session is only ever changed within its own organization.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { type EndReason, type Session, SessionStore } from "../../core/accounts/ports/SessionStore.ts"
import type { OrgId, UserId } from "../../core/shared/domain/Ids.ts"

interface SessionRow {
  readonly org_id: string
  readonly user_id: string
  readonly created_at: Date
  readonly last_seen_at: Date
}

export const layer = Layer.effect(
  SessionStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const create = (tokenHash: Uint8Array, session: Session) =>
      sql`
        INSERT INTO dashboard_sessions (token_hash, org_id, user_id, created_at, last_seen_at)
        VALUES (${tokenHash}, ${session.orgId}, ${session.userId}, ${DateTime.toDateUtc(session.createdAt)},
          ${DateTime.toDateUtc(session.lastSeenAt)})`.pipe(
        Effect.orDie,
        Effect.asVoid,
        Effect.withSpan("PgSessionStore.create")
      )

    const find = (tokenHash: Uint8Array) =>
      sql<SessionRow>`SELECT * FROM dashboard_sessions WHERE token_hash = ${tokenHash}`.pipe(
        Effect.orDie,
        Effect.map((rows) =>
          Option.map(
            Option.fromNullishOr(rows[0]),
            (row): Session => ({
              orgId: row.org_id as OrgId,
              userId: row.user_id as UserId,
              createdAt: DateTime.fromDateUnsafe(row.created_at),
              lastSeenAt: DateTime.fromDateUnsafe(row.last_seen_at)
            })
          )
        ),
        Effect.withSpan("PgSessionStore.find")
      )

    const touch = (org: OrgId, tokenHash: Uint8Array, at: DateTime.Utc) =>
      sql`
        UPDATE dashboard_sessions SET last_seen_at = greatest(last_seen_at, ${DateTime.toDateUtc(at)})
        WHERE org_id = ${org} AND token_hash = ${tokenHash}`.pipe(Effect.orDie, Effect.asVoid)

    const remove = (org: OrgId, tokenHash: Uint8Array) =>
      sql`DELETE FROM dashboard_sessions WHERE org_id = ${org} AND token_hash = ${tokenHash}`.pipe(
        Effect.orDie,
        Effect.asVoid
      )

    const removeAllOfUser = (org: OrgId, user: UserId, reason: EndReason, at: DateTime.Utc) =>
      sql`
        WITH ended AS (
          DELETE FROM dashboard_sessions WHERE org_id = ${org} AND user_id = ${user} RETURNING token_hash
        )
        INSERT INTO dashboard_ended_sessions (token_hash, reason, ended_at)
        SELECT token_hash, ${reason}, ${DateTime.toDateUtc(at)} FROM ended
        ON CONFLICT (token_hash) DO UPDATE SET reason = EXCLUDED.reason, ended_at = EXCLUDED.ended_at`.pipe(
        Effect.orDie,
        Effect.asVoid,
        Effect.withSpan("PgSessionStore.removeAllOfUser")
      )

    const endedReason = (tokenHash: Uint8Array) =>
      sql<{ reason: EndReason }>`SELECT reason FROM dashboard_ended_sessions WHERE token_hash = ${tokenHash}`.pipe(
        Effect.orDie,
        Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), (row) => row.reason)),
        Effect.withSpan("PgSessionStore.endedReason")
      )

    const removeExpired = (createdBefore: DateTime.Utc, seenBefore: DateTime.Utc) =>
      sql`
        WITH forgotten AS (
          DELETE FROM dashboard_ended_sessions WHERE ended_at < ${DateTime.toDateUtc(createdBefore)}
        )
        DELETE FROM dashboard_sessions
        WHERE created_at < ${DateTime.toDateUtc(createdBefore)} OR last_seen_at < ${DateTime.toDateUtc(seenBefore)}
        RETURNING 1 AS one`.pipe(
        Effect.orDie,
        Effect.map((rows) => rows.length),
        Effect.withSpan("PgSessionStore.removeExpired")
      )

    return SessionStore.of({ create, find, touch, remove, removeAllOfUser, endedReason, removeExpired })
  })
)
