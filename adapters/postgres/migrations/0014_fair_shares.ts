/**
 * Fair shares between tenants and towards debtors' portals (docs/decisions.md, Rate limits and
 * Syncing a pair): an organization's own rate limit set by an operator (both figures, or neither
 * for the service's defaults); the time a failed run's portal asked to be left alone until, kept
 * on the run's record, which a manual sync honours; when the last manual sync of a pair began,
 * so that two at once cannot both pass; and a pause that keeps the pair's planned
 * next sync. Pairs paused before this migration had theirs cleared: they are planned again from
 * their last run and interval, or from their pause for a pair that never ran.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE organizations
      ADD COLUMN rate_limit_per_second double precision CHECK (rate_limit_per_second > 0),
      ADD COLUMN rate_limit_burst integer CHECK (rate_limit_burst >= 1),
      ADD CHECK ((rate_limit_per_second IS NULL) = (rate_limit_burst IS NULL))`
  yield* sql`ALTER TABLE sync_runs ADD COLUMN portal_retry_at timestamptz`
  yield* sql`ALTER TABLE integrations ADD COLUMN manual_sync_at timestamptz`
  yield* sql`
    UPDATE integrations SET next_sync_at = coalesce(last_run_at + sync_interval, paused_at)
    WHERE paused_at IS NOT NULL AND next_sync_at IS NULL`
  // Counting an organization's live keys, under its lock, at every key's creation.
  yield* sql`CREATE INDEX api_keys_live_idx ON api_keys (org_id) WHERE revoked_at IS NULL`
})
