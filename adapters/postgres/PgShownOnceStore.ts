/**
 * `ShownOnceStore` over PostgreSQL: the `dashboard_shown_once` table of migration 0026. Taking is
 * one `DELETE ... RETURNING`, so of two requests with one handle only one gets the secret.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { type HeldSecret, ShownOnceStore } from "../../core/accounts/ports/ShownOnceStore.ts"
import type { OrgId } from "../../core/shared/domain/Ids.ts"
import { isUuid } from "./Uuid.ts"

export const layer = Layer.effect(
  ShownOnceStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const hold = (held: HeldSecret, now: DateTime.Utc) =>
      Effect.gen(function* () {
        yield* sql`DELETE FROM dashboard_shown_once WHERE expires_at <= ${DateTime.toDateUtc(now)}`
        yield* sql`
          INSERT INTO dashboard_shown_once (handle_hash, kind, org_id, sealed, expires_at)
          VALUES (${held.handleHash}, ${held.kind}, ${held.orgId}, ${held.sealed}, ${DateTime.toDateUtc(held.expiresAt)})`
      }).pipe(Effect.orDie, Effect.withSpan("PgShownOnceStore.hold"))

    const take = (handleHash: Uint8Array, kind: string, orgId: OrgId, now: DateTime.Utc) =>
      Effect.gen(function* () {
        if (!isUuid(orgId)) return Option.none<string>()
        // The expired go as well, so that no sealed secret outlives its minute for want of another.
        const [taken] = yield* sql<{ readonly sealed: string }>`
          DELETE FROM dashboard_shown_once
          WHERE (handle_hash = ${handleHash} AND kind = ${kind} AND org_id = ${orgId})
            OR expires_at <= ${DateTime.toDateUtc(now)}
          RETURNING sealed, handle_hash = ${handleHash} AND expires_at > ${DateTime.toDateUtc(now)} AS mine`.pipe(
          Effect.map((rows) => rows.filter((row) => (row as unknown as { mine: boolean }).mine))
        )
        return Option.fromNullishOr(taken?.sealed)
      }).pipe(Effect.orDie, Effect.withSpan("PgShownOnceStore.take"))

    return ShownOnceStore.of({ hold, take })
  })
)
