/**
 * Webhooks: endpoints, their deliveries and each delivery's attempts.
 *
 * The events feed is the outbox: an endpoint's `cursor` is the newest sequence fanned out to it,
 * and since sequences are given in commit order (0009, 0013), reading `sequence > cursor` never
 * skips an event committed later. Fan-out is a worker's own transaction: the sync's is untouched.
 *
 * A delivery is due when `next_attempt_at` has come and it is `pending`, or `sending` under a
 * lease that ended (`next_attempt_at` is then the lease's end): one partial index finds both, and
 * a worker that dies loses nothing. An endpoint's row is locked while deliveries of it are
 * claimed, so its cap of attempts in flight holds across processes.
 *
 * Secrets are stored sealed (AES-256-GCM under a master key the app holds), never plain; while a
 * rotation overlaps the previous one is kept until `previous_secret_expires_at`.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE webhook_endpoints (
      id text PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES organizations (id),
      url text NOT NULL,
      description text,
      event_types text[] NOT NULL CHECK (cardinality(event_types) >= 1),
      enabled boolean NOT NULL,
      disabled_reason text CHECK (disabled_reason IN ('manual', 'failing', 'gone')),
      disabled_at timestamptz,
      secret text NOT NULL,
      previous_secret text,
      previous_secret_expires_at timestamptz,
      cursor bigint NOT NULL CHECK (cursor >= 0),
      fanned_out_at timestamptz NOT NULL,
      failing_since timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK (enabled = (disabled_reason IS NULL))
    )`
  yield* sql`CREATE INDEX webhook_endpoints_org_idx ON webhook_endpoints (org_id, id)`
  yield* sql`CREATE INDEX webhook_endpoints_fan_out_idx ON webhook_endpoints (fanned_out_at) WHERE enabled`
  yield* sql`
    CREATE TABLE webhook_deliveries (
      id text PRIMARY KEY,
      org_id uuid NOT NULL,
      endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_id text NOT NULL,
      event_type text NOT NULL,
      sequence bigint,
      body text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'sending', 'succeeded', 'failed')),
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      next_attempt_at timestamptz,
      last_attempt_at timestamptz,
      lease_owner text,
      created_at timestamptz NOT NULL,
      CHECK ((status IN ('pending', 'sending')) = (next_attempt_at IS NOT NULL))
    )`
  yield* sql`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id)`
  yield* sql`
    CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at, sequence)
    WHERE status IN ('pending', 'sending')`
  yield* sql`
    CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (created_at)
    WHERE status IN ('succeeded', 'failed')`
  yield* sql`
    CREATE TABLE webhook_attempts (
      id text PRIMARY KEY,
      delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      org_id uuid NOT NULL,
      started_at timestamptz NOT NULL,
      duration_ms integer NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('succeeded', 'http_error', 'timeout', 'connection_failed', 'blocked')),
      response_status integer,
      response_body text,
      error text
    )`
  yield* sql`CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id)`
})
