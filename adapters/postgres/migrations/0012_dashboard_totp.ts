/**
 * The dashboard's optional second factor (TOTP): each user's secret, stored as is because codes
 * are verified with it (docs/decisions.md, Dashboard), the last time step a code was accepted
 * for (a code is accepted once), the wrong codes entered since the last right one, and at most one sign-in waiting for its code, by the SHA-256 of
 * its token. Enabling and disabling it are dashboard actions; 0010 is released, so its CHECK is
 * replaced here rather than edited there.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE dashboard_users
      ADD COLUMN totp_secret text,
      ADD COLUMN totp_last_step bigint,
      ADD COLUMN totp_wrong_codes integer NOT NULL DEFAULT 0 CHECK (totp_wrong_codes >= 0),
      ADD COLUMN held_sign_in_hash bytea UNIQUE,
      ADD COLUMN held_sign_in_expires_at timestamptz,
      ADD CHECK ((totp_secret IS NULL) = (totp_last_step IS NULL)),
      ADD CHECK (totp_secret ~ '^[A-Z2-7]{32}$' AND totp_last_step >= 0),
      ADD CHECK (length(held_sign_in_hash) = 32),
      ADD CHECK ((held_sign_in_hash IS NULL) = (held_sign_in_expires_at IS NULL))`
  yield* sql`ALTER TABLE dashboard_audit DROP CONSTRAINT dashboard_audit_action_check`
  yield* sql`
    ALTER TABLE dashboard_audit ADD CONSTRAINT dashboard_audit_action_check
      CHECK (action IN ('invite_accepted', 'sign_in', 'sign_in_failed', 'sign_out', 'sign_out_everywhere',
        'key_created', 'key_revoked', 'integration_paused', 'integration_resumed', 'totp_enabled', 'totp_disabled'))`
})
