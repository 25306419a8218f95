/**
 * An admin revokes an organization's pending invite from the team page: a dashboard action, so
 * the CHECK on actions is replaced here as the union of every action so far. And a session ended
 * for its user (a role change, a removal, signing out everywhere, a new invite) keeps its digest
 * with why, for the sign-in page to tell whoever comes back with it (docs/decisions.md).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE dashboard_audit DROP CONSTRAINT dashboard_audit_action_check`
  yield* sql`
    ALTER TABLE dashboard_audit ADD CONSTRAINT dashboard_audit_action_check
      CHECK (action IN ('invite_accepted', 'sign_in', 'sign_in_failed', 'sign_out', 'sign_out_everywhere',
        'key_created', 'key_revoked', 'integration_paused', 'integration_resumed', 'integration_sync_requested',
        'totp_enabled', 'totp_disabled', 'user_invited', 'invite_revoked', 'role_changed', 'user_removed',
        'webhook_endpoint_created', 'webhook_endpoint_updated', 'webhook_endpoint_enabled',
        'webhook_endpoint_disabled_by_user', 'webhook_endpoint_deleted', 'webhook_endpoint_secret_rotated',
        'webhook_endpoint_tested', 'webhook_endpoint_replayed', 'webhook_delivery_retried',
        'webhook_endpoint_disabled', 'recovery_codes_generated', 'recovery_code_used'))`
  yield* sql`
    CREATE TABLE dashboard_ended_sessions (
      token_hash bytea PRIMARY KEY CHECK (length(token_hash) = 32),
      reason text NOT NULL
        CHECK (reason IN ('role_changed', 'removed', 'signed_out_everywhere', 'reinvited', 'invite_redeemed')),
      ended_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX dashboard_ended_sessions_ended_at_idx ON dashboard_ended_sessions (ended_at)`
})
