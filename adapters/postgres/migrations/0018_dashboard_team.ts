/**
 * The dashboard as a product: admins change roles and remove users (`removed_at`: a removed user
 * signs in no more, but stays, so that the dashboard audit log still names them); a second
 * factor's secret is proposed and kept on the server until a code confirms it
 * (`totp_pending_secret`); several sign-ins may wait for their code (`dashboard_held_sign_ins`,
 * replacing the one per user of 0012); the new actions are audited; and dashboard actions get a retention: the append-only trigger lets one
 * statement delete rows older than the retention, and only while the transaction says so
 * (`dashboard_audit.pruning`), which only `PgDashboardAuditLog.prune` does.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE dashboard_users
      ADD COLUMN removed_at timestamptz,
      ADD COLUMN totp_pending_secret text CHECK (totp_pending_secret ~ '^[A-Z2-7]{32}$')`
  // Several sign-ins of a user may wait for their code at once, so that someone who has the
  // password cannot cancel the owner's by signing in again. Sign-ins held in the old columns, for
  // at most five minutes, are dropped with them: those users sign in again.
  yield* sql`
    CREATE TABLE dashboard_held_sign_ins (
      token_hash bytea PRIMARY KEY CHECK (length(token_hash) = 32),
      org_id uuid NOT NULL,
      user_id uuid NOT NULL,
      expires_at timestamptz NOT NULL,
      FOREIGN KEY (org_id, user_id) REFERENCES dashboard_users (org_id, id)
    )`
  yield* sql`CREATE INDEX dashboard_held_sign_ins_user_idx ON dashboard_held_sign_ins (org_id, user_id, expires_at)`
  yield* sql`ALTER TABLE dashboard_users DROP COLUMN held_sign_in_hash, DROP COLUMN held_sign_in_expires_at`
  yield* sql`ALTER TABLE dashboard_audit DROP CONSTRAINT dashboard_audit_action_check`
  yield* sql`
    ALTER TABLE dashboard_audit ADD CONSTRAINT dashboard_audit_action_check
      CHECK (action IN ('invite_accepted', 'sign_in', 'sign_in_failed', 'sign_out', 'sign_out_everywhere',
        'key_created', 'key_revoked', 'integration_paused', 'integration_resumed', 'totp_enabled', 'totp_disabled',
        'user_invited', 'role_changed', 'user_removed'))`
  // Retention deletes by time across organizations; the filtered pages read by organization.
  yield* sql`CREATE INDEX dashboard_audit_at_idx ON dashboard_audit (at)`
  yield* sql`
    CREATE OR REPLACE FUNCTION dashboard_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' AND current_setting('dashboard_audit.pruning', true) = 'on' THEN
        RETURN OLD;
      END IF;
      RAISE EXCEPTION 'dashboard_audit is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
    END
    $$`
})
