/**
 * `SecondFactorStore` over PostgreSQL: the second factor's columns of `dashboard_users`
 * (migrations 0012 and 0013, its expiring lock; 0018 the proposed secret), the held sign-ins of
 * `dashboard_held_sign_ins` (0018, several per user) and the recovery codes of
 * `dashboard_recovery_codes` (0024, a row each). A code's step and a held sign-in are each used up
 * by one conditional statement, a wrong code is counted, and the factor locked, by one UPDATE, and
 * a recovery code is used up by one DELETE and deleted with the factor in the same transaction.
 */
import { Array as Arr, DateTime, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import {
  maxHeldSignIns,
  type NewSecondFactor,
  type SecondFactor,
  SecondFactorStore,
  type WrongCode
} from "../../core/accounts/ports/SecondFactorStore.ts"
import type { DashboardUser } from "../../core/accounts/ports/UserStore.ts"
import type { OrgId, UserId } from "../../core/shared/domain/Ids.ts"
import { toUser, type UserRow } from "./PgUserRows.ts"
import { isUuid } from "./Uuid.ts"

export const layer = Layer.effect(
  SecondFactorStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const findPendingSecret = Effect.fn("PgSecondFactorStore.findPendingSecret")(function* (org: OrgId, id: UserId) {
      if (!isUuid(org) || !isUuid(id)) return Option.none<Redacted.Redacted<string>>()
      const rows = yield* sql<{ totp_pending_secret: string }>`
        SELECT totp_pending_secret FROM dashboard_users
        WHERE org_id = ${org} AND id = ${id} AND totp_pending_secret IS NOT NULL`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(rows[0]), (row) => Redacted.make(row.totp_pending_secret))
    })

    const setPendingSecret = Effect.fn("PgSecondFactorStore.setPendingSecret")(function* (
      org: OrgId,
      id: UserId,
      secret: Redacted.Redacted<string>
    ) {
      if (!isUuid(org) || !isUuid(id)) return
      yield* sql`
        UPDATE dashboard_users SET totp_pending_secret = ${Redacted.value(secret)}
        WHERE org_id = ${org} AND id = ${id}`.pipe(Effect.orDie)
    })

    const findSecondFactor = Effect.fn("PgSecondFactorStore.findSecondFactor")(function* (org: OrgId, id: UserId) {
      if (!isUuid(org) || !isUuid(id)) return Option.none<SecondFactor>()
      const rows = yield* sql<{
        totp_secret: string
        totp_last_step: string
        totp_wrong_codes: number
        totp_locks: number
        totp_locked_until: Date | null
        totp_last_wrong_at: Date | null
        totp_last_wrong_address: string | null
      }>`
        SELECT totp_secret, totp_last_step, totp_wrong_codes, totp_locks, totp_locked_until, totp_last_wrong_at,
          totp_last_wrong_address
        FROM dashboard_users
        WHERE org_id = ${org} AND id = ${id} AND totp_secret IS NOT NULL`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(rows[0]), (row) => ({
        secret: Redacted.make(row.totp_secret),
        lastStep: Number(row.totp_last_step),
        wrongCodes: Number(row.totp_wrong_codes),
        locks: Number(row.totp_locks),
        lockedUntil: row.totp_locked_until === null ? null : DateTime.fromDateUnsafe(row.totp_locked_until),
        lastWrongCode:
          row.totp_last_wrong_at === null
            ? null
            : { at: DateTime.fromDateUnsafe(row.totp_last_wrong_at), clientAddress: row.totp_last_wrong_address }
      }))
    })

    // Off: the user's row is updated first, so that a replacement of the codes racing this (which
    // locks that row) waits and then finds the factor off.
    const turnOff = (org: OrgId, id: UserId) =>
      Effect.gen(function* () {
        yield* sql`
          UPDATE dashboard_users SET totp_secret = NULL, totp_last_step = NULL
          WHERE org_id = ${org} AND id = ${id}`
        yield* sql`DELETE FROM dashboard_recovery_codes WHERE org_id = ${org} AND user_id = ${id}`
      }).pipe(sql.withTransaction, Effect.orDie)

    const setSecondFactor = Effect.fn("PgSecondFactorStore.setSecondFactor")(function* (
      org: OrgId,
      id: UserId,
      factor: NewSecondFactor | null
    ) {
      if (!isUuid(org) || !isUuid(id)) return false
      if (factor === null) {
        yield* turnOff(org, id)
        return true
      }
      const rows = yield* sql`
        UPDATE dashboard_users
        SET totp_secret = ${Redacted.value(factor.secret)}, totp_last_step = ${factor.lastStep}, totp_wrong_codes = 0,
          totp_pending_secret = NULL,
          totp_locks = 0, totp_locked_until = NULL, totp_last_wrong_at = NULL, totp_last_wrong_address = NULL
        WHERE org_id = ${org} AND id = ${id} AND totp_secret IS NULL
        RETURNING id`.pipe(Effect.orDie)
      return rows.length === 1
    })

    const useStep = Effect.fn("PgSecondFactorStore.useStep")(function* (org: OrgId, id: UserId, step: number) {
      if (!isUuid(org) || !isUuid(id)) return false
      const rows = yield* sql`
        UPDATE dashboard_users SET totp_last_step = ${step}, totp_wrong_codes = 0, totp_locks = 0
        WHERE org_id = ${org} AND id = ${id} AND totp_last_step < ${step}
        RETURNING id`.pipe(Effect.orDie)
      return rows.length === 1
    })

    const countWrongCode = Effect.fn("PgSecondFactorStore.countWrongCode")(function* (
      org: OrgId,
      id: UserId,
      wrong: WrongCode,
      lockUntil: DateTime.Utc | null
    ) {
      if (!isUuid(org) || !isUuid(id)) return
      const locking = lockUntil !== null
      yield* sql`
        UPDATE dashboard_users
        SET totp_wrong_codes = CASE WHEN ${locking} THEN 0 ELSE totp_wrong_codes + 1 END,
          totp_locks = totp_locks + CASE WHEN ${locking} THEN 1 ELSE 0 END,
          totp_locked_until = COALESCE(${lockUntil === null ? null : DateTime.toDateUtc(lockUntil)}::timestamptz,
            totp_locked_until),
          totp_last_wrong_at = ${DateTime.toDateUtc(wrong.at)}, totp_last_wrong_address = ${wrong.clientAddress}
        WHERE org_id = ${org} AND id = ${id} AND totp_secret IS NOT NULL`.pipe(Effect.orDie)
    })

    const replaceRecoveryCodes = (org: OrgId, id: UserId, digests: ReadonlyArray<Uint8Array>) =>
      Effect.gen(function* () {
        if (!isUuid(org) || !isUuid(id)) return false
        const on = yield* sql`
          SELECT id FROM dashboard_users WHERE org_id = ${org} AND id = ${id} AND totp_secret IS NOT NULL
          FOR UPDATE`
        if (on.length === 0) return false
        yield* sql`DELETE FROM dashboard_recovery_codes WHERE org_id = ${org} AND user_id = ${id}`
        const rows: Array<Record<string, unknown>> = digests.map((digest) => ({
          org_id: org,
          user_id: id,
          code_hash: digest
        }))
        if (Arr.isReadonlyArrayNonEmpty(rows)) yield* sql`INSERT INTO dashboard_recovery_codes ${sql.insert(rows)}`
        return true
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("PgSecondFactorStore.replaceRecoveryCodes"))

    const findRecoveryCodes = Effect.fn("PgSecondFactorStore.findRecoveryCodes")(function* (org: OrgId, id: UserId) {
      if (!isUuid(org) || !isUuid(id)) return []
      const rows = yield* sql<{ code_hash: Uint8Array }>`
        SELECT code_hash FROM dashboard_recovery_codes WHERE org_id = ${org} AND user_id = ${id}`.pipe(Effect.orDie)
      return rows.map((row) => new Uint8Array(row.code_hash))
    })

    // One statement: the DELETE decides which of two racing uses wins (the other finds no row), and
    // the count is read from the snapshot before it, hence the one taken away.
    const useRecoveryCode = Effect.fn("PgSecondFactorStore.useRecoveryCode")(function* (
      org: OrgId,
      id: UserId,
      digest: Uint8Array
    ) {
      if (!isUuid(org) || !isUuid(id)) return Option.none<number>()
      const rows = yield* sql<{ used: string; unused: string }>`
        WITH used AS (
          DELETE FROM dashboard_recovery_codes
          WHERE org_id = ${org} AND user_id = ${id} AND code_hash = ${digest}
          RETURNING org_id, user_id
        ), restarted AS (
          UPDATE dashboard_users SET totp_wrong_codes = 0, totp_locks = 0
          WHERE (org_id, id) IN (SELECT org_id, user_id FROM used)
        )
        SELECT (SELECT count(*) FROM used) AS used,
          (SELECT count(*) FROM dashboard_recovery_codes WHERE org_id = ${org} AND user_id = ${id}) AS unused`.pipe(
        Effect.orDie
      )
      const row = rows[0]
      if (row === undefined || Number(row.used) === 0) return Option.none<number>()
      return Option.some(Number(row.unused) - 1)
    })

    const holdSignIn = (org: OrgId, id: UserId, tokenHash: Uint8Array, expiresAt: DateTime.Utc) =>
      Effect.gen(function* () {
        if (!isUuid(org) || !isUuid(id)) return
        yield* sql`
          INSERT INTO dashboard_held_sign_ins (token_hash, org_id, user_id, expires_at)
          VALUES (${tokenHash}, ${org}, ${id}, ${DateTime.toDateUtc(expiresAt)})`
        // The expired go, and past the cap the oldest: a user's rows stay few.
        yield* sql`
          DELETE FROM dashboard_held_sign_ins
          WHERE org_id = ${org} AND user_id = ${id}
            AND (expires_at <= now() OR token_hash NOT IN (
              SELECT token_hash FROM dashboard_held_sign_ins WHERE org_id = ${org} AND user_id = ${id}
              ORDER BY expires_at DESC LIMIT ${maxHeldSignIns}))`
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("PgSecondFactorStore.holdSignIn"))

    const takeSignIn = Effect.fn("PgSecondFactorStore.takeSignIn")(function* (
      tokenHash: Uint8Array,
      now: DateTime.Utc
    ) {
      // Removed whether or not it has expired: a token is tried once.
      const rows = yield* sql<UserRow & { expires_at: Date }>`
        WITH taken AS (DELETE FROM dashboard_held_sign_ins WHERE token_hash = ${tokenHash} RETURNING *)
        SELECT u.*, taken.expires_at FROM taken
        JOIN dashboard_users u ON u.org_id = taken.org_id AND u.id = taken.user_id AND u.removed_at IS NULL`.pipe(
        Effect.orDie
      )
      const row = rows[0]
      if (row === undefined || row.expires_at <= DateTime.toDateUtc(now)) return Option.none<DashboardUser>()
      return Option.some(toUser(row))
    })

    return SecondFactorStore.of({
      findPendingSecret,
      setPendingSecret,
      findSecondFactor,
      setSecondFactor,
      useStep,
      countWrongCode,
      replaceRecoveryCodes,
      findRecoveryCodes,
      useRecoveryCode,
      holdSignIn,
      takeSignIn
    })
  })
)
