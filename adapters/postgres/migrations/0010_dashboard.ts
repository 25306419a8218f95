/**
 * The dashboard: its users (one organization each, one user per e-mail address across all
 * organizations, since sign-in is by address alone), the invites operators send them (stored by
 * the SHA-256 of their token, used once), their server-side sessions (by the SHA-256 of their
 * token) and the log of what they did there, append-only like the request audit log. Every table
 * carries `org_id`; users are referenced with it, so no row can point into another organization.
 * The one row without an organization is a failed sign-in with an address that has no account:
 * written all the same, so that the answer's timing does not tell which addresses have accounts.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE dashboard_users (
      org_id uuid NOT NULL REFERENCES organizations (id),
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      email text NOT NULL UNIQUE CHECK (email = lower(email) AND length(email) <= 254),
      role text NOT NULL CHECK (role IN ('admin', 'member')),
      password_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (org_id, id)
    )`
  yield* sql`
    CREATE TABLE dashboard_invites (
      token_hash bytea PRIMARY KEY CHECK (length(token_hash) = 32),
      org_id uuid NOT NULL REFERENCES organizations (id),
      email text NOT NULL CHECK (email = lower(email) AND length(email) <= 254),
      role text NOT NULL CHECK (role IN ('admin', 'member')),
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    )`
  // Redeeming an invite uses up the address's other unused invites of the organization.
  yield* sql`CREATE INDEX dashboard_invites_unused_idx ON dashboard_invites (org_id, email) WHERE used_at IS NULL`
  yield* sql`
    CREATE TABLE dashboard_sessions (
      token_hash bytea PRIMARY KEY CHECK (length(token_hash) = 32),
      org_id uuid NOT NULL,
      user_id uuid NOT NULL,
      created_at timestamptz NOT NULL,
      last_seen_at timestamptz NOT NULL,
      FOREIGN KEY (org_id, user_id) REFERENCES dashboard_users (org_id, id)
    )`
  yield* sql`CREATE INDEX dashboard_sessions_user_idx ON dashboard_sessions (org_id, user_id)`
  yield* sql`
    CREATE TABLE dashboard_audit (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      org_id uuid,
      at timestamptz NOT NULL,
      user_id uuid,
      action text NOT NULL CHECK (action IN ('invite_accepted', 'sign_in', 'sign_in_failed', 'sign_out',
        'sign_out_everywhere', 'key_created', 'key_revoked', 'integration_paused', 'integration_resumed')),
      subject text,
      client_address text,
      FOREIGN KEY (org_id, user_id) REFERENCES dashboard_users (org_id, id),
      CHECK ((org_id IS NULL) = (user_id IS NULL)),
      CHECK (user_id IS NOT NULL OR action = 'sign_in_failed')
    )`
  yield* sql`CREATE INDEX dashboard_audit_org_at_idx ON dashboard_audit (org_id, at DESC, id DESC)`
  yield* sql`
    CREATE FUNCTION dashboard_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'dashboard_audit is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
    END
    $$`
  yield* sql`
    CREATE TRIGGER dashboard_audit_no_change BEFORE UPDATE OR DELETE ON dashboard_audit
    FOR EACH ROW EXECUTE FUNCTION dashboard_audit_append_only()`
  yield* sql`
    CREATE TRIGGER dashboard_audit_no_truncate BEFORE TRUNCATE ON dashboard_audit
    FOR EACH STATEMENT EXECUTE FUNCTION dashboard_audit_append_only()`
  yield* sql`REVOKE UPDATE, DELETE, TRUNCATE ON dashboard_audit FROM PUBLIC`
})
