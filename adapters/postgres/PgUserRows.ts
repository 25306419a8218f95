/**
 * The rows of `dashboard_users` (migrations 0010 and 0018) and their reading into the domain's
 * users, shared by `PgUserStore` and `PgSecondFactorStore` (a held sign-in is taken with its user).
 */
import { DateTime } from "effect"
import type { Role } from "../../core/accounts/domain/Dashboard.ts"
import type { DashboardUser } from "../../core/accounts/ports/UserStore.ts"
import type { OrgId, UserId } from "../../core/shared/domain/Ids.ts"

export interface UserRow {
  readonly org_id: string
  readonly id: string
  readonly email: string
  readonly role: Role
  readonly password_hash: string
  readonly created_at: Date
  readonly removed_at: Date | null
}

export const toUser = (row: UserRow): DashboardUser => ({
  id: row.id as UserId,
  orgId: row.org_id as OrgId,
  email: row.email,
  role: row.role,
  createdAt: DateTime.fromDateUnsafe(row.created_at)
})
