/**
 * The `dashboard_audit` table's CHECK on actions, as the latest migration leaves it, against the
 * port's list: every action the core records is one the table accepts, and nothing else is. A
 * migration that redefines the CHECK and leaves one out would otherwise fail only when that action
 * is first recorded.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgDashboardAuditLog from "../../../adapters/postgres/PgDashboardAuditLog.ts"
import { DashboardAction, DashboardAuditLog } from "../../../core/accounts/ports/DashboardAuditLog.ts"
import type { OrgId, UserId } from "../../../core/shared/domain/Ids.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"

const TestLayer = PgDashboardAuditLog.layer.pipe(Layer.provideMerge(TestDatabase.layer))

layer(TestLayer, { excludeTestServices: true, timeout: 120_000 })("dashboard actions in PostgreSQL", (it) => {
  it.effect("the table accepts every action of the port, recovery codes' included, and no other", () =>
    Effect.gen(function* () {
      const log = yield* DashboardAuditLog
      const sql = yield* SqlClient.SqlClient
      const at = yield* DateTime.now
      const [org] = yield* sql<{ id: OrgId }>`INSERT INTO organizations (name) VALUES ('Actions') RETURNING id`
      const [user] = yield* sql<{ id: UserId }>`
        INSERT INTO dashboard_users (org_id, email, role, password_hash)
        VALUES (${org!.id}, 'actions@example.com', 'admin', 'hash') RETURNING id`
      for (const action of DashboardAction.literals) {
        const by = { orgId: org!.id, userId: user!.id }
        yield* log.record({ at, user: by, action, subject: null, clientAddress: null })
      }
      const stored = yield* sql<{ action: string }>`
        SELECT DISTINCT action FROM dashboard_audit WHERE org_id = ${org!.id}`
      assert.sameMembers(
        stored.map((row) => row.action),
        [...DashboardAction.literals]
      )
      assert.includeMembers([...DashboardAction.literals], ["recovery_codes_generated", "recovery_code_used"])
      const other = yield* Effect.exit(
        sql`INSERT INTO dashboard_audit (org_id, at, user_id, action) VALUES (${org!.id}, now(), ${user!.id}, 'made_up')`
      )
      assert.isTrue(Exit.isFailure(other))
    })
  )
})
