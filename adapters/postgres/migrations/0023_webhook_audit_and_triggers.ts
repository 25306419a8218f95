/**
 * Webhooks tell the organization, and say why each attempt was made.
 *
 * The service itself writes a dashboard audit entry when it disables a failing endpoint: an entry
 * of the organization with no user, allowed for `webhook_endpoint_disabled` only, as an entry of no
 * user and no organization stays allowed for a failed sign-in only (0010). The action check is the
 * union of every action so far, those of what admins do to webhooks in the dashboard among them,
 * and that one.
 *
 * An attempt records its trigger; a delivery keeps the trigger of its next attempt (set when it is
 * made, after a failure, by a manual retry). Attempts made before this read `scheduled`: what made
 * them was not kept. Deliveries waiting now are given what their next attempt would have been.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const triggers = "('scheduled', 'retry', 'manual_retry', 'replay', 'test')"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE dashboard_audit DROP CONSTRAINT dashboard_audit_action_check`
  yield* sql`
    ALTER TABLE dashboard_audit ADD CONSTRAINT dashboard_audit_action_check
      CHECK (action IN ('invite_accepted', 'sign_in', 'sign_in_failed', 'sign_out', 'sign_out_everywhere',
        'key_created', 'key_revoked', 'integration_paused', 'integration_resumed', 'integration_sync_requested',
        'totp_enabled', 'totp_disabled', 'user_invited', 'role_changed', 'user_removed',
        'webhook_endpoint_created', 'webhook_endpoint_updated', 'webhook_endpoint_enabled',
        'webhook_endpoint_disabled_by_user', 'webhook_endpoint_deleted', 'webhook_endpoint_secret_rotated',
        'webhook_endpoint_tested', 'webhook_endpoint_replayed', 'webhook_delivery_retried',
        'webhook_endpoint_disabled'))`
  // 0010's two unnamed checks: organization and user both or neither, and no user only for a failed sign-in.
  yield* sql`ALTER TABLE dashboard_audit DROP CONSTRAINT dashboard_audit_check`
  yield* sql`ALTER TABLE dashboard_audit DROP CONSTRAINT dashboard_audit_check1`
  yield* sql`
    ALTER TABLE dashboard_audit ADD CONSTRAINT dashboard_audit_actor_check
      CHECK (CASE
        WHEN user_id IS NOT NULL THEN org_id IS NOT NULL
        WHEN org_id IS NULL THEN action = 'sign_in_failed'
        ELSE action = 'webhook_endpoint_disabled'
      END)`
  yield* sql.unsafe(`
    ALTER TABLE webhook_deliveries
      ADD COLUMN next_trigger text NOT NULL DEFAULT 'scheduled' CHECK (next_trigger IN ${triggers})`)
  yield* sql`
    UPDATE webhook_deliveries
    SET next_trigger = CASE WHEN attempts > 0 THEN 'retry' WHEN event_type = 'webhook.test' THEN 'test' ELSE 'scheduled' END
    WHERE status IN ('pending', 'sending') AND (attempts > 0 OR event_type = 'webhook.test')`
  yield* sql.unsafe(`
    ALTER TABLE webhook_attempts
      ADD COLUMN trigger text NOT NULL DEFAULT 'scheduled' CHECK (trigger IN ${triggers})`)
})
