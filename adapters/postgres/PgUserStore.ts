/**
 * `UserStore` over PostgreSQL: the `dashboard_invites` and `dashboard_users` tables of migration
 * 0010. An invite is redeemed by one conditional UPDATE (unused, unexpired) in the same
 * transaction as its user's row, the clearing of its second factor, recovery codes and held
 * sign-ins (`PgSecondFactorStore`'s columns and tables), and the using up of the address's other
 * invites, so two redemptions racing each other cannot both succeed. Migration 0018 adds removed
 * users (kept, marked `removed_at`); a removal drops the user's proposed secret and held sign-ins
 * in its transaction. Role changes and removals of one organization run one after another under
 * its row's lock, so the last admin stays. Migration 0033 records who sent an invite (`invited_by`),
 * read back as their address.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { OrganizationNotFound } from "../../core/access/ports/ApiKeyStore.ts"
import type { Role } from "../../core/accounts/domain/Dashboard.ts"
import {
  type DashboardUser,
  EmailTaken,
  type Invite,
  type NewInvite,
  type TeamMember,
  takesLastAdmin,
  UserStore
} from "../../core/accounts/ports/UserStore.ts"
import type { OrgId, UserId } from "../../core/shared/domain/Ids.ts"
import { toUser, type UserRow } from "./PgUserRows.ts"
import { isUuid } from "./Uuid.ts"

interface InviteRow {
  readonly org_id: string
  readonly email: string
  readonly role: Role
  readonly created_at: Date
  readonly expires_at: Date
  readonly used_at: Date | null
  /** The sender's address, joined from `dashboard_users` by `invited_by` (0033). */
  readonly invited_by_email: string | null
}

/** A user row with its second factor's secret, read only to tell whether there is one. */
type MemberRow = UserRow & { readonly totp_secret: string | null }

const toMember = (row: MemberRow): TeamMember => ({
  ...toUser(row),
  removedAt: row.removed_at === null ? null : DateTime.fromDateUnsafe(row.removed_at),
  secondFactor: row.totp_secret !== null
})

const toInvite = (row: InviteRow): Invite => ({
  orgId: row.org_id as OrgId,
  email: row.email,
  role: row.role,
  createdAt: DateTime.fromDateUnsafe(row.created_at),
  expiresAt: DateTime.fromDateUnsafe(row.expires_at),
  usedAt: row.used_at === null ? null : DateTime.fromDateUnsafe(row.used_at),
  invitedBy: row.invited_by_email
})

export const layer = Layer.effect(
  UserStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const inviteColumns = sql.literal(
      "i.org_id, i.email, i.role, i.created_at, i.expires_at, i.used_at, u.email AS invited_by_email"
    )
    const senderJoin = sql.literal("LEFT JOIN dashboard_users u ON u.org_id = i.org_id AND u.id = i.invited_by")

    // The one question asked across organizations: addresses are unique over all of them.
    const ownerOf = (email: string) =>
      Effect.map(
        sql<{ org_id: string }>`SELECT org_id FROM dashboard_users WHERE email = ${email}`.pipe(Effect.orDie),
        (rows) => rows[0]?.org_id
      )

    const createInvite = Effect.fn("PgUserStore.createInvite")(function* (invite: NewInvite) {
      const orgs = isUuid(invite.orgId)
        ? yield* sql<{ id: string }>`SELECT id FROM organizations WHERE id = ${invite.orgId}`.pipe(Effect.orDie)
        : []
      if (orgs[0] === undefined) return yield* new OrganizationNotFound({ id: invite.orgId })
      const owner = yield* ownerOf(invite.email)
      if (owner !== undefined && owner !== orgs[0].id) return yield* new EmailTaken({ email: invite.email })
      // The older links of the address stop working as this one is made: one statement.
      const [row] = yield* sql<Omit<InviteRow, "invited_by_email">>`
        WITH voided AS (
          UPDATE dashboard_invites SET used_at = now()
          WHERE org_id = ${orgs[0].id} AND email = ${invite.email} AND used_at IS NULL
        )
        INSERT INTO dashboard_invites (token_hash, org_id, email, role, expires_at, invited_by)
        VALUES (${invite.tokenHash}, ${orgs[0].id}, ${invite.email}, ${invite.role},
          ${DateTime.toDateUtc(invite.expiresAt)}, ${invite.invitedBy?.id ?? null})
        RETURNING org_id, email, role, created_at, expires_at, used_at`.pipe(Effect.orDie)
      return toInvite({ ...row!, invited_by_email: invite.invitedBy?.email ?? null })
    })

    const findInvite = Effect.fn("PgUserStore.findInvite")(function* (tokenHash: Uint8Array) {
      const rows = yield* sql<InviteRow>`
        SELECT ${inviteColumns} FROM dashboard_invites i ${senderJoin} WHERE i.token_hash = ${tokenHash}`.pipe(
        Effect.orDie
      )
      return Option.map(Option.fromNullishOr(rows[0]), toInvite)
    })

    const pendingInvites = Effect.fn("PgUserStore.pendingInvites")(function* (org: OrgId, now: DateTime.Utc) {
      if (!isUuid(org)) return []
      const rows = yield* sql<InviteRow>`
        SELECT ${inviteColumns} FROM dashboard_invites i ${senderJoin}
        WHERE i.org_id = ${org} AND i.used_at IS NULL AND i.expires_at > ${DateTime.toDateUtc(now)}
        ORDER BY i.email, i.created_at DESC`.pipe(Effect.orDie)
      return rows.map(toInvite)
    })

    const revokeInvites = Effect.fn("PgUserStore.revokeInvites")(function* (
      org: OrgId,
      email: string,
      now: DateTime.Utc
    ) {
      if (!isUuid(org)) return false
      const at = DateTime.toDateUtc(now)
      const rows = yield* sql`
        UPDATE dashboard_invites SET used_at = ${at}
        WHERE org_id = ${org} AND email = ${email} AND used_at IS NULL AND expires_at > ${at}
        RETURNING 1`.pipe(Effect.orDie)
      return rows.length > 0
    })

    const redeemInvite = (tokenHash: Uint8Array, passwordHash: string, now: DateTime.Utc) =>
      Effect.gen(function* () {
        const at = DateTime.toDateUtc(now)
        const [invite] = yield* sql<Omit<InviteRow, "invited_by_email">>`
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
        const team = (yield* sql<MemberRow>`
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
        Effect.withSpan("PgUserStore.redeemInvite")
      )

    const findByEmail = Effect.fn("PgUserStore.findByEmail")(function* (email: string) {
      const rows = yield* sql<UserRow>`
        SELECT * FROM dashboard_users WHERE email = ${email} AND removed_at IS NULL`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(rows[0]), (row) => ({
        user: toUser(row),
        passwordHash: row.password_hash
      }))
    })

    const findUser = Effect.fn("PgUserStore.findUser")(function* (org: OrgId, id: UserId) {
      if (!isUuid(org) || !isUuid(id)) return Option.none<DashboardUser>()
      const rows = yield* sql<UserRow>`
        SELECT * FROM dashboard_users WHERE org_id = ${org} AND id = ${id} AND removed_at IS NULL`.pipe(Effect.orDie)
      return Option.map(Option.fromNullishOr(rows[0]), toUser)
    })

    const listUsers = Effect.fn("PgUserStore.listUsers")(function* (org: OrgId) {
      if (!isUuid(org)) return []
      const rows = yield* sql<MemberRow>`
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
        const rows = yield* sql<MemberRow>`
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
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("PgUserStore.changeRole"))

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
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("PgUserStore.removeUser"))

    return UserStore.of({
      createInvite,
      findInvite,
      pendingInvites,
      revokeInvites,
      redeemInvite,
      findByEmail,
      findUser,
      listUsers,
      changeRole,
      removeUser
    })
  })
)
