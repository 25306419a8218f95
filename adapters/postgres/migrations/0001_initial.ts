/**
 * The data model (ARCHITECTURE.md): organizations and their keys, vendors, debtors, one
 * integration per vendor-debtor pair, receivables with history and the events outbox, sync runs,
 * audit log and key usage. Tenant tables carry `org_id`, and their keys and references include it,
 * so the schema can be distributed by organization later. Runs on PostgreSQL 15 and newer.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE organizations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL CHECK (name <> ''),
      created_at timestamptz NOT NULL DEFAULT now()
    )`

  yield* sql`
    CREATE TABLE api_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES organizations (id),
      name text NOT NULL DEFAULT '',
      key_hash bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
      display_start text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz,
      last_used_at timestamptz
    )`
  yield* sql`CREATE INDEX api_keys_org_idx ON api_keys (org_id, created_at)`

  yield* sql`
    CREATE TABLE vendors (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES organizations (id),
      name text NOT NULL CHECK (name <> ''),
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (org_id, id)
    )`
  yield* sql`CREATE INDEX vendors_org_name_idx ON vendors (org_id, name, id)`

  // Debtors are the buying companies, shared by every organization whose vendors bill them; an
  // organization sees a debtor only through its own receivables.
  yield* sql`
    CREATE TABLE debtors (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL CHECK (name <> ''),
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX debtors_name_idx ON debtors (name, id)`

  // One integration per vendor-debtor pair. next_sync_at is the pair's estimated_next_update_at,
  // stored once here and joined in on read, so all receivables of a pair always agree on it.
  yield* sql`
    CREATE TABLE integrations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL,
      vendor_id uuid NOT NULL,
      debtor_id uuid NOT NULL REFERENCES debtors (id),
      connector text NOT NULL,
      config jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(config) = 'object'),
      sync_interval interval NOT NULL DEFAULT '1 hour' CHECK (sync_interval > interval '0'),
      paused_at timestamptz,
      next_sync_at timestamptz,
      lease_owner text,
      lease_expires_at timestamptz,
      consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
      last_run_at timestamptz,
      last_outcome text CHECK (last_outcome IN ('succeeded', 'failed')),
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (org_id, vendor_id) REFERENCES vendors (org_id, id),
      UNIQUE (org_id, vendor_id, debtor_id),
      UNIQUE (org_id, id),
      UNIQUE (org_id, id, vendor_id, debtor_id)
    )`
  // The scheduler claims due, unpaused pairs in next_sync_at order.
  yield* sql`CREATE INDEX integrations_due_idx ON integrations (next_sync_at) WHERE paused_at IS NULL`
  // Vendor and debtor lists take the minimum next_sync_at over an organization's pairs.
  yield* sql`CREATE INDEX integrations_org_debtor_idx ON integrations (org_id, debtor_id, next_sync_at)`

  // vendor_id and debtor_id repeat the integration's, enforced by the composite reference, so
  // that every filter of the list is served by an index of this table alone.
  yield* sql`
    CREATE TABLE receivables (
      org_id uuid NOT NULL,
      id text NOT NULL CHECK (id ~ '^rcv_[0-9a-f]{32}$'),
      integration_id uuid NOT NULL,
      vendor_id uuid NOT NULL,
      debtor_id uuid NOT NULL,
      document_key text NOT NULL,
      vendor_receivable_id text,
      amount_cents bigint NOT NULL,
      currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
      receivable_date date NOT NULL,
      due_date date,
      status text NOT NULL
        CHECK (status IN ('PENDING', 'APPROVED', 'PAID', 'SOLD', 'DISPUTED', 'ACKNOWLEDGED')),
      portal_status text NOT NULL,
      po_number text,
      metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
      detected_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (org_id, id),
      UNIQUE (integration_id, document_key),
      FOREIGN KEY (org_id, integration_id, vendor_id, debtor_id)
        REFERENCES integrations (org_id, id, vendor_id, debtor_id)
    )`
  // The list is ordered by (detected_at, id); each index ends with that order so a page is read
  // in order. The pair filter is served by the vendor index's prefix.
  yield* sql`CREATE INDEX receivables_org_order_idx ON receivables (org_id, detected_at, id)`
  yield* sql`CREATE INDEX receivables_vendor_idx ON receivables (org_id, vendor_id, debtor_id, detected_at, id)`
  yield* sql`CREATE INDEX receivables_debtor_idx ON receivables (org_id, debtor_id, detected_at, id)`
  yield* sql`CREATE INDEX receivables_status_idx ON receivables (org_id, status, detected_at, id)`
  // The default 24-hour window selects by updated_at; the included columns let the page be
  // ordered and cut from the index alone.
  yield* sql`CREATE INDEX receivables_updated_idx ON receivables (org_id, updated_at) INCLUDE (detected_at, id)`

  yield* sql`
    CREATE TABLE receivable_history (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      org_id uuid NOT NULL,
      receivable_id text NOT NULL,
      changed_at timestamptz NOT NULL,
      changes jsonb NOT NULL CHECK (jsonb_typeof(changes) = 'object'),
      FOREIGN KEY (org_id, receivable_id) REFERENCES receivables (org_id, id)
    )`
  // Newest first, per receivable: serves the per-receivable history limit of a whole page.
  yield* sql`
    CREATE INDEX receivable_history_receivable_idx
      ON receivable_history (org_id, receivable_id, changed_at DESC, id DESC)`

  // The outbox of the planned webhook events, written in the sync transaction.
  yield* sql`
    CREATE TABLE events (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id text NOT NULL UNIQUE,
      org_id uuid NOT NULL,
      type text NOT NULL
        CHECK (type IN ('receivable.created', 'receivable.updated', 'receivable.status_changed')),
      receivable_id text NOT NULL,
      created_at timestamptz NOT NULL,
      data jsonb NOT NULL,
      delivered_at timestamptz,
      FOREIGN KEY (org_id, receivable_id) REFERENCES receivables (org_id, id)
    )`
  yield* sql`CREATE INDEX events_undelivered_idx ON events (seq) WHERE delivered_at IS NULL`
  yield* sql`CREATE INDEX events_receivable_idx ON events (org_id, receivable_id, seq)`

  yield* sql`
    CREATE TABLE sync_runs (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      org_id uuid NOT NULL,
      integration_id uuid NOT NULL,
      worker text NOT NULL,
      started_at timestamptz NOT NULL,
      finished_at timestamptz,
      outcome text CHECK (outcome IN ('succeeded', 'failed')),
      fetched integer NOT NULL DEFAULT 0,
      created integer NOT NULL DEFAULT 0,
      updated integer NOT NULL DEFAULT 0,
      unchanged integer NOT NULL DEFAULT 0,
      quarantined integer NOT NULL DEFAULT 0,
      quarantine jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(quarantine) = 'array'),
      error text,
      FOREIGN KEY (org_id, integration_id) REFERENCES integrations (org_id, id)
    )`
  yield* sql`CREATE INDEX sync_runs_integration_idx ON sync_runs (org_id, integration_id, started_at DESC)`

  // Every request, accepted or not. key_id and org_id are null where no key was recognised.
  yield* sql`
    CREATE TABLE audit_log (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      at timestamptz NOT NULL,
      request_id text NOT NULL,
      key_id uuid,
      org_id uuid,
      method text NOT NULL,
      path text NOT NULL,
      query text NOT NULL,
      status smallint NOT NULL,
      duration_ms double precision NOT NULL,
      client_address text
    )`
  yield* sql`CREATE INDEX audit_log_at_idx ON audit_log (at DESC)`
  yield* sql`CREATE INDEX audit_log_org_at_idx ON audit_log (org_id, at DESC)`

  yield* sql`
    CREATE TABLE api_key_usage (
      key_id uuid NOT NULL REFERENCES api_keys (id),
      org_id uuid NOT NULL,
      day date NOT NULL,
      requests_2xx bigint NOT NULL DEFAULT 0,
      requests_4xx bigint NOT NULL DEFAULT 0,
      requests_5xx bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (key_id, day)
    )`
})
