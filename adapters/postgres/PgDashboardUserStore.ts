/**
 * `DashboardUserStore` over PostgreSQL: the `dashboard_invites` and `dashboard_users` tables of
 * migration 0010. An invite is redeemed by one conditional UPDATE (unused, unexpired) in the same
 * transaction as its user's row and the using up of the address's other invites, so two
 * redemptions racing each other cannot both succeed. The second factor's columns are migration
 * 0012's and 0013's (its expiring lock); a code's step and a held sign-in are each used up by one
 * conditional UPDATE, and a wrong code is counted, and the factor locked, by one UPDATE.
 * Migration 0018 adds removed users (kept, marked `removed_at`), the proposed secret and several
 * held sign-ins per user (`dashboard_held_sign_ins`); 0024 the recovery codes, a row each, used up
 * by one DELETE and deleted with the factor in the same transaction.
 */
import { Array as Arr, DateTime, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { OrganizationNotFound } from "../../core/access/ports/ApiKeyStore.ts"
import type { Role } from "../../core/accounts/domain/Dashboard.ts"
import {
  type DashboardUser,
  DashboardUserStore,
  EmailTaken,
  type Invite,
  maxHeldSignIns,
  type NewInvite,
  type NewSecondFactor,
  type SecondFactor,
  type TeamMember,
  takesLastAdmin,
  type WrongCode
} from "../../core/accounts/ports/DashboardUserStore.ts"
import type { OrgId, UserId } from "../../core/shared/domain/Ids.ts"
import { isUuid } from "./Uuid.ts"

interface UserRow {
  readonly org_id: string
  readonly id: string
  readonly email: string
  readonly role: Role
  readonly password_hash: string
  readonly created_at: Date
  readonly removed_at: Date | null
}

interface InviteRow {
  readonly org_id: string
  readonly email: string
  readonly role: Role
  readonly created_at: Date
  readonly expires_at: Date
  readonly used_at: Date | null
}

const toUser = (row: UserRow): DashboardUser => ({
  id: row.id as UserId,
  orgId: row.org_id as OrgId,
  email: row.email,
  role: row.role,
  createdAt: DateTime.fromDateUnsafe(row.created_at)
})

const toMember = (row: UserRow): TeamMember => ({
  ...toUser(row),
  removedAt: row.removed_at === null ? null : DateTime.fromDateUnsafe(row.removed_at)
})

const toInvite = (row: InviteRow): Invite => ({
  orgId: row.org_id as OrgId,
  email: row.email,
  role: row.role,
  createdAt: DateTime.fromDateUnsafe(row.created_at),
  expiresAt: DateTime.fromDateUnsafe(row.expires_at),
  usedAt: row.used_at === null ? null : DateTime.fromDateUnsafe(row.used_at)
})

export const layer = Layer.effect(
  DashboardUserStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // The one question asked across organizations: addresses are unique over all of them.
    const ownerOf = (email: string) =>
      Effect.map(
        sql<{ org_id: string }>`SELECT org_id FROM dashboard_users WHERE email = ${email}`.pipe(Effect.orDie),
        (rows) => rows[0]?.org_id
      )

    const createInvite = Effect.fn("PgDashboardUserStore.createInvite")(function* (invite: NewInvite) {
      const orgs = isUuid(invite.orgId)
        ? yield* sql<{ id: string }>`SELECT id FROM organizations WHERE id = ${invite.orgId}`.pipe(Effect.orDie)
        : []
      if (orgs[0] === undefined) return yield* new OrganizationNotFound({ id: invite.orgId })
      const owner = yield* ownerOf(invite.email)
      if (owner !== undefined && owner !== orgs[0].id) return yield* new EmailTaken({ email: invite.email })
      // The older links of the address stop working as this one is made: one statement.
      const [row] = yield* sql<InviteRow>`
        WITH voided AS (
          UPDATE dashboard_invites SET used_at = now()
          WHERE org_id = ${orgs[0].id} AND email = ${invite.email} AND used_at IS NULL
        )
        INSERT INTO dashboard_invites (token_hash, org_id, email, role, expires_at)
        VALUES (${invite.tokenHash}, ${orgs[0].id}, ${invite.email}, ${invite.role},
          ${DateTime.toDateUtc(invite.expiresAt)})
        RETURNING *`.pipe(Effect.orDie)
      return toInvite(row!)
    })

    const findInvite = Effect.fn("PgDashboardUserStore.findInvite")(function* (tokenHash: Uint8Array) {
      const rows = yield* sql<InviteRow>`SELECT * FROM dashboard_invites WHERE token_hash = ${tokenHash}`.pipe(
        Effect.orDie
      )
      return Option.map(Option.fromNullishOr(rows[0]), toInvite)
    })

    const redeemInvite = (tokenHash: Uint8Array, passwordHash: string, now: DateTime.Utc) =>
      Effect.gen(function* () {
        const at = DateTime.toDateUtc(now)
        const [invite] = yield* sql<InviteRow>`
          UPDATE dashboard_invites SET used_at = ${at}
          WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${at}
          RETURNING *`
        if (invite === undefined) return Option.none<DashboardUser>()
        // The same organization's user of that address takes the new password and role, and loses
        // its second factor (a new invite is how an operator lets in someone who lost either); another
        // organization's keeps its own, and the redemption is rolled back. The role is a team change
        // like any other: under the organization's lock, it never takes away the last admin (who
        // stays one, with the new password).
        yield* sql`SELECT 1 FROM organizations WHERE id = ${invite.org_id} FOR NO KEY UPDATE`
        const team = (yield* sql<UserRow>`
          SELECT * FROM dashboard_users
          WHERE org_id = ${invite.org_id} AND (role = 'admin' OR email = ${invite.email})`).map(toMember)
        const existing = team.find((member) => member.email === invite.email && member.removedAt === null)
        const role =
          existing !== undefined && takesLastAdmin(team, existing.id, invite.role as Role) ? "admin" : invite.role
        const [user] = yield* sql<UserRow>`
          INSERT INTO dashboard_users (org_id, email, role, password_hash, created_at)
          VALUES (${invite.org_id}, ${invite.email}, ${role}, ${passwordHash}, ${at})
          ON CONFLICT (email) DO UPDATE SET role = excluded.role, password_hash = excluded.password_hash,
            totp_secret = NULL, totp_last_step = NULL, totp_pending_secret = NULL, removed_at = NULL
            WHERE dashboard_users.org_id = excluded.org_id
          RETURNING *`
        if (user === undefined) return yield* new EmailTaken({ email: invite.email })
        yield* sql`DELETE FROM dashboard_held_sign_ins WHERE org_id = ${user.org_id} AND user_id = ${user.id}`
        yield* sql`DELETE FROM dashboard_recovery_codes WHERE org_id = ${user.org_id} AND user_id = ${user.id}`
        // The address's older links stop working: the password is now the one just set.
        yield* sql`
          UPDATE dashboard_invites SET used_at = ${at}
          WHERE org_id = ${invite.org_id} AND email = ${invite.email} AND used_at IS NULL`
        return Option.some(toUser(user))
      }).pipe(
        sql.withTransaction,
        // A database failure is a fault; `EmailTaken` is the port's answer and stays one.
        Effect.catchTag("SqlError", Effect.die),
        Effect.withSpan("PgDashboardUserStore.redeemInvite")
      )

    const findByEmail = Effect.fn("PgDashboardUserStore.findByEmail")(function* (email: string) {
      const rows = yield* sql<UserRow>`
        SELECT * FROM dashboard_users WHERE email = ${email} AND removed_at IS NULL`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(rows[0]), (row) => ({
        user: toUser(row),
        passwordHash: row.password_hash
      }))
    })

    const findUser = Effect.fn("PgDashboardUserStore.findUser")(function* (org: OrgId, id: UserId) {
      if (!isUuid(org) || !isUuid(id)) return Option.none<DashboardUser>()
      const rows = yield* sql<UserRow>`
        SELECT * FROM dashboard_users WHERE org_id = ${org} AND id = ${id} AND removed_at IS NULL`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(rows[0]), toUser)
    })

    const listUsers = Effect.fn("PgDashboardUserStore.listUsers")(function* (org: OrgId) {
      if (!isUuid(org)) return []
      const rows = yield* sql<UserRow>`
        SELECT * FROM dashboard_users WHERE org_id = ${org} ORDER BY email`.pipe(Effect.orDie)
      return rows.map(toMember)
    })

    /**
     * The organization's user of that id if not removed, or why the change cannot be made. It locks
     * the organization's row first (`FOR NO KEY UPDATE`: inserts that refer to the organization go
     * on), so every role change and removal of one organization runs one after another and each
     * sees the admins the one before it left.
     */
    const changeable = (org: OrgId, id: UserId, becomes: Role | "removed") =>
      Effect.gen(function* () {
        if (!isUuid(org) || !isUuid(id)) return "missing" as const
        yield* sql`SELECT 1 FROM organizations WHERE id = ${org} FOR NO KEY UPDATE`
        const rows = yield* sql<UserRow>`
          SELECT * FROM dashboard_users WHERE org_id = ${org} AND (role = 'admin' OR id = ${id})`
        const members = rows.map(toMember)
        const found = members.find((member) => member.id === id.toLowerCase() && member.removedAt === null)
        if (found === undefined) return "missing" as const
        return takesLastAdmin(members, found.id, becomes) ? ("last_admin" as const) : found
      })

    const changeRole = (org: OrgId, id: UserId, role: Role) =>
      Effect.gen(function* () {
        const found = yield* changeable(org, id, role)
        if (typeof found === "string") return found
        yield* sql`UPDATE dashboard_users SET role = ${role} WHERE org_id = ${org} AND id = ${found.id}`
        return "done" as const
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("PgDashboardUserStore.changeRole"))

    // The user's held sign-in and proposed secret go with them; the invites of their address too.
    const removeUser = (org: OrgId, id: UserId, now: DateTime.Utc) =>
      Effect.gen(function* () {
        const found = yield* changeable(org, id, "removed")
        if (typeof found === "string") return found
        const at = DateTime.toDateUtc(now)
        yield* sql`
          UPDATE dashboard_users SET removed_at = ${at}, totp_pending_secret = NULL
          WHERE org_id = ${org} AND id = ${found.id}`
        yield* sql`DELETE FROM dashboard_held_sign_ins WHERE org_id = ${org} AND user_id = ${found.id}`
        yield* sql`
          UPDATE dashboard_invites SET used_at = ${at}
          WHERE org_id = ${org} AND email = ${found.email} AND used_at IS NULL`
        return "done" as const
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("PgDashboardUserStore.removeUser"))

    const findPendingSecret = Effect.fn("PgDashboardUserStore.findPendingSecret")(function* (org: OrgId, id: UserId) {
      if (!isUuid(org) || !isUuid(id)) return Option.none<Redacted.Redacted<string>>()
      const rows = yield* sql<{ totp_pending_secret: string }>`
        SELECT totp_pending_secret FROM dashboard_users
        WHERE org_id = ${org} AND id = ${id} AND totp_pending_secret IS NOT NULL`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(rows[0]), (row) => Redacted.make(row.totp_pending_secret))
    })

    const setPendingSecret = Effect.fn("PgDashboardUserStore.setPendingSecret")(function* (
      org: OrgId,
      id: UserId,
      secret: Redacted.Redacted<string>
    ) {
      if (!isUuid(org) || !isUuid(id)) return
      yield* sql`
        UPDATE dashboard_users SET totp_pending_secret = ${Redacted.value(secret)}
        WHERE org_id = ${org} AND id = ${id}`.pipe(Effect.orDie)
    })

    const findSecondFactor = Effect.fn("PgDashboardUserStore.findSecondFactor")(function* (org: OrgId, id: UserId) {
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

    const setSecondFactor = Effect.fn("PgDashboardUserStore.setSecondFactor")(function* (
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

    const useStep = Effect.fn("PgDashboardUserStore.useStep")(function* (org: OrgId, id: UserId, step: number) {
      if (!isUuid(org) || !isUuid(id)) return false
      const rows = yield* sql`
        UPDATE dashboard_users SET totp_last_step = ${step}, totp_wrong_codes = 0, totp_locks = 0
        WHERE org_id = ${org} AND id = ${id} AND totp_last_step < ${step}
        RETURNING id`.pipe(Effect.orDie)
      return rows.length === 1
    })

    const countWrongCode = Effect.fn("PgDashboardUserStore.countWrongCode")(function* (
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
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("PgDashboardUserStore.replaceRecoveryCodes"))

    const findRecoveryCodes = Effect.fn("PgDashboardUserStore.findRecoveryCodes")(function* (org: OrgId, id: UserId) {
      if (!isUuid(org) || !isUuid(id)) return []
      const rows = yield* sql<{ code_hash: Uint8Array }>`
        SELECT code_hash FROM dashboard_recovery_codes WHERE org_id = ${org} AND user_id = ${id}`.pipe(Effect.orDie)
      return rows.map((row) => new Uint8Array(row.code_hash))
    })

    // One statement: the DELETE decides which of two racing uses wins (the other finds no row), and
    // the count is read from the snapshot before it, hence the one taken away.
    const useRecoveryCode = Effect.fn("PgDashboardUserStore.useRecoveryCode")(function* (
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
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("PgDashboardUserStore.holdSignIn"))

    const takeSignIn = Effect.fn("PgDashboardUserStore.takeSignIn")(function* (
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

    return DashboardUserStore.of({
      createInvite,
      findInvite,
      redeemInvite,
      findByEmail,
      findUser,
      listUsers,
      changeRole,
      removeUser,
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
