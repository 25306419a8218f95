/**
 * Forward-only schema migrations, run at start by the Effect SQL migrator inside one transaction
 * under a table lock, so concurrent starts apply each migration exactly once. A landed migration
 * is never edited: add the next numbered file instead.
 *
 * Rolling upgrades follow expand and contract: a release's migrations keep the previous release
 * working (add a column, table or index; never drop, rename or tighten what the previous release
 * reads or writes until a later release, once no process of the older one runs). Each migration
 * states in `oldestCompatible` the oldest schema version whose build still works once it is
 * applied; the migrator records it in `schema_compatibility`, where an older build's readiness
 * reads it.
 */
import { Array as Arr, Effect, Layer } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { DirectClient } from "./Database.ts"
import * as Incarnation from "./Incarnation.ts"
import initial from "./migrations/0001_initial.ts"
import auditAppendOnly from "./migrations/0002_audit_append_only.ts"
import apiKeyRevocationNotify from "./migrations/0003_api_key_revocation_notify.ts"
import leanOutbox from "./migrations/0004_lean_outbox.ts"
import outboxInSequence from "./migrations/0005_outbox_in_sequence.ts"
import jsonAsWritten from "./migrations/0006_json_as_written.ts"
import syncDeadline from "./migrations/0007_sync_deadline.ts"
import auditPartitions from "./migrations/0008_audit_partitions.ts"
import eventsFeed from "./migrations/0009_events_feed.ts"
import dashboard from "./migrations/0010_dashboard.ts"
import auditSearch from "./migrations/0011_audit_search.ts"
import dashboardTotp from "./migrations/0012_dashboard_totp.ts"
import syncsInFlight from "./migrations/0013_syncs_in_flight.ts"
import fairShares from "./migrations/0014_fair_shares.ts"
import secondFactorLock from "./migrations/0015_second_factor_lock.ts"
import sharedLimits from "./migrations/0016_shared_limits.ts"
import webhooks from "./migrations/0017_webhooks.ts"
import dashboardTeam from "./migrations/0018_dashboard_team.ts"
import keyPermissions from "./migrations/0019_key_permissions.ts"
import dashboardSearch from "./migrations/0020_dashboard_search.ts"
import signInThrottles from "./migrations/0021_sign_in_throttles.ts"
import webhookDashboardActions from "./migrations/0022_webhook_dashboard_actions.ts"
import webhookAuditAndTriggers from "./migrations/0023_webhook_audit_and_triggers.ts"
import recoveryCodes from "./migrations/0024_recovery_codes.ts"
import webhookRetriesBesideSchedule from "./migrations/0025_webhook_retries_beside_schedule.ts"
import dashboardShownOnce from "./migrations/0026_dashboard_shown_once.ts"
import syncInTwoPhases from "./migrations/0027_sync_in_two_phases.ts"
import schemaCompatibility from "./migrations/0028_schema_compatibility.ts"
import signInFirstTurn from "./migrations/0029_sign_in_first_turn.ts"
import inFlightShares from "./migrations/0030_in_flight_shares.ts"
import incarnations from "./migrations/0031_incarnations.ts"
import teamInvitesAndEndedSessions from "./migrations/0032_team_invites_and_ended_sessions.ts"
import amountOrderAndInviter from "./migrations/0033_amount_order_and_inviter.ts"

export const migrationsTable = "schema_migrations"

export const compatibilityTable = "schema_compatibility"

export const migrations = {
  "0001_initial": initial,
  "0002_audit_append_only": auditAppendOnly,
  "0003_api_key_revocation_notify": apiKeyRevocationNotify,
  "0004_lean_outbox": leanOutbox,
  "0005_outbox_in_sequence": outboxInSequence,
  "0006_json_as_written": jsonAsWritten,
  "0007_sync_deadline": syncDeadline,
  "0008_audit_partitions": auditPartitions,
  "0009_events_feed": eventsFeed,
  "0010_dashboard": dashboard,
  "0011_audit_search": auditSearch,
  "0012_dashboard_totp": dashboardTotp,
  "0013_syncs_in_flight": syncsInFlight,
  "0014_fair_shares": fairShares,
  "0015_second_factor_lock": secondFactorLock,
  "0016_shared_limits": sharedLimits,
  "0017_webhooks": webhooks,
  "0018_dashboard_team": dashboardTeam,
  "0019_key_permissions": keyPermissions,
  "0020_dashboard_search": dashboardSearch,
  "0021_sign_in_throttles": signInThrottles,
  "0022_webhook_dashboard_actions": webhookDashboardActions,
  "0023_webhook_audit_and_triggers": webhookAuditAndTriggers,
  "0024_recovery_codes": recoveryCodes,
  "0025_webhook_retries_beside_schedule": webhookRetriesBesideSchedule,
  "0026_dashboard_shown_once": dashboardShownOnce,
  "0027_sync_in_two_phases": syncInTwoPhases,
  "0028_schema_compatibility": schemaCompatibility,
  "0029_sign_in_first_turn": signInFirstTurn,
  "0030_in_flight_shares": inFlightShares,
  "0031_incarnations": incarnations,
  "0032_team_invites_and_ended_sessions": teamInvitesAndEndedSessions,
  "0033_amount_order_and_inviter": amountOrderAndInviter
}

/**
 * For each migration, the oldest schema version (migration id) whose build keeps working once it
 * is applied: its own id when a build without it must not serve (it drops, renames or tightens
 * what older builds use), an older one when it only adds. Those before 0028 were written before
 * this rule and were not checked against it, so each states its own id. Every migration states
 * one (the type says so).
 */
export const oldestCompatible: { readonly [Name in keyof typeof migrations]: number } = {
  "0001_initial": 1,
  "0002_audit_append_only": 2,
  "0003_api_key_revocation_notify": 3,
  "0004_lean_outbox": 4,
  "0005_outbox_in_sequence": 5,
  "0006_json_as_written": 6,
  "0007_sync_deadline": 7,
  "0008_audit_partitions": 8,
  "0009_events_feed": 9,
  "0010_dashboard": 10,
  "0011_audit_search": 11,
  "0012_dashboard_totp": 12,
  "0013_syncs_in_flight": 13,
  "0014_fair_shares": 14,
  "0015_second_factor_lock": 15,
  "0016_shared_limits": 16,
  "0017_webhooks": 17,
  "0018_dashboard_team": 18,
  "0019_key_permissions": 19,
  "0020_dashboard_search": 20,
  "0021_sign_in_throttles": 21,
  "0022_webhook_dashboard_actions": 22,
  "0023_webhook_audit_and_triggers": 23,
  "0024_recovery_codes": 24,
  "0025_webhook_retries_beside_schedule": 25,
  "0026_dashboard_shown_once": 26,
  // A build that syncs in one transaction takes no run lease: it must not sync beside this one.
  "0027_sync_in_two_phases": 27,
  "0028_schema_compatibility": 27,
  // Adds a second signature beside the old function: builds at 0028 keep calling theirs.
  "0029_sign_in_first_turn": 28,
  // A new table beside `requests_in_flight`: builds at 0029 keep counting their rows.
  "0030_in_flight_shares": 29,
  // Adds two tables an older build never reads.
  "0031_incarnations": 29,
  // A new action and a new table: an older build shows the action log's new action by its code
  // and never reads the table.
  "0032_team_invites_and_ended_sessions": 29,
  // An index and a nullable column: an older build's invites simply name no sender.
  "0033_amount_order_and_inviter": 29
}

/** The id of a migration named `<id>_<name>`. */
export const migrationId = (name: string) => Number(name.split("_")[0])

/** The migration this build expects the database to be at. */
export const latestMigrationId = Math.max(...Object.keys(migrations).map(migrationId))

/**
 * The tables a migration rewrites whole, by migration id. A rewritten table has no visibility map
 * until it is next vacuumed, so index-only scans (every list page's choice of rows) read its heap
 * again, and autovacuum may not look at a table that changes little for days. A rewritten column
 * also loses its statistics.
 */
const rewrittenTables: Readonly<Record<number, ReadonlyArray<string>>> = { 6: ["receivables", "events"] }

/**
 * Applies the pending ones of `known` and records what each of them stays compatible with
 * (`compatibleFrom`, by name; at every start, so a start stopped between the two still records
 * it); returns the migrations it applied. `migrate` is this build's; a test passes a later
 * build's.
 */
export const migrateWith = (
  known: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>,
  compatibleFrom: Record<string, number>
) =>
  Effect.gen(function* () {
    const applied = yield* Migrator.make({})({ loader: Migrator.fromRecord(known), table: migrationsTable })
    const sql = yield* SqlClient.SqlClient
    const declared: Array<Record<string, unknown>> = Object.entries(compatibleFrom).map(([name, oldest]) => ({
      migration_id: migrationId(name),
      oldest_compatible: oldest
    }))
    if (Arr.isReadonlyArrayNonEmpty(declared)) {
      yield* sql`INSERT INTO ${sql(compatibilityTable)} ${sql.insert(declared)} ON CONFLICT (migration_id) DO NOTHING`
    }
    const rewritten = new Set(applied.flatMap(([id]) => rewrittenTables[id] ?? []))
    // After the migrations' transaction, since VACUUM cannot run inside one; only the process that
    // applied the migration gets here.
    for (const table of rewritten) yield* sql`VACUUM (ANALYZE) ${sql(table)}`
    return applied
  })

/** Applies this build's pending migrations; returns the ones it applied. */
export const migrate = migrateWith(migrations, oldestCompatible)

/**
 * Migrates when built, over the direct connection (`DATABASE_DIRECT_URL`): a pooler may cap or
 * time out the long transaction of a migration, and VACUUM wants a session. Then checks the
 * database's incarnation, so that a restored copy moves its event sequences past what the
 * original may have given before anything reads or writes them. The app's layers start only on
 * an up-to-date schema of a known incarnation.
 */
export const layer = Layer.effectDiscard(
  Effect.flatMap(DirectClient, (direct) =>
    Effect.andThen(migrate.pipe(Effect.withSpan("Migrations.migrate")), Incarnation.check).pipe(
      Effect.provideService(SqlClient.SqlClient, direct)
    )
  )
)
