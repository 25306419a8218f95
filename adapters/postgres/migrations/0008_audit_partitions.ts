/**
 * The audit log in monthly partitions, so that retention drops whole expired months and never
 * deletes a row: live entries stay append-only. The existing table becomes the first partition
 * (everything before next month), without rewriting it. `audit_log_maintain` creates the coming
 * months' partitions and drops those wholly older than the retention; the app runs it at start
 * and every few hours, and operators with `audit prune`. Row triggers refuse updates and deletes
 * on every partition; each partition also refuses TRUNCATE, which a parent's trigger does not
 * cover. A partition's upper bound is read from the catalog, never from its name.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`LOCK TABLE audit_log IN ACCESS EXCLUSIVE MODE`
  yield* sql`DROP TRIGGER audit_log_no_change ON audit_log`
  yield* sql`DROP TRIGGER audit_log_no_truncate ON audit_log`
  yield* sql`ALTER TABLE audit_log RENAME TO audit_log_before_partitions`
  yield* sql`ALTER TABLE audit_log_before_partitions ALTER COLUMN id DROP IDENTITY`
  yield* sql`CREATE SEQUENCE audit_log_id_seq`
  yield* sql`SELECT setval('audit_log_id_seq', coalesce((SELECT max(id) FROM audit_log_before_partitions), 0) + 1, false)`
  yield* sql`
    CREATE TABLE audit_log (
      id bigint NOT NULL DEFAULT nextval('audit_log_id_seq'),
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
    ) PARTITION BY RANGE (at)`
  yield* sql`ALTER SEQUENCE audit_log_id_seq OWNED BY audit_log.id`
  yield* sql`CREATE INDEX audit_log_by_at ON audit_log (at DESC)`
  yield* sql`CREATE INDEX audit_log_by_org_at ON audit_log (org_id, at DESC)`
  yield* sql`
    CREATE FUNCTION audit_log_month_start(months_from_now int) RETURNS timestamptz LANGUAGE sql STABLE AS $$
      SELECT (date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => months_from_now)) AT TIME ZONE 'UTC'
    $$`
  yield* sql.unsafe(`
    DO $$ BEGIN
      EXECUTE format('ALTER TABLE audit_log ATTACH PARTITION audit_log_before_partitions FOR VALUES FROM (MINVALUE) TO (%L)',
        audit_log_month_start(1));
    END $$`)
  yield* sql`
    CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`
  yield* sql`
    CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()`
  yield* sql`
    CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log_before_partitions
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()`
  yield* sql`
    CREATE FUNCTION audit_log_maintain(retention interval, months_ahead int)
    RETURNS TABLE (partition text, action text) LANGUAGE plpgsql AS $$
    DECLARE
      month_start timestamptz;
      name text;
      upper_bound timestamptz;
      part record;
    BEGIN
      FOR i IN 1..months_ahead LOOP
        month_start := audit_log_month_start(i);
        name := 'audit_log_' || to_char(month_start AT TIME ZONE 'UTC', 'YYYY_MM');
        CONTINUE WHEN to_regclass(name) IS NOT NULL;
        EXECUTE format('CREATE TABLE %I PARTITION OF audit_log FOR VALUES FROM (%L) TO (%L)',
          name, month_start, audit_log_month_start(i + 1));
        EXECUTE format('CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON %I
          FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()', name);
        EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %I FROM PUBLIC', name);
        partition := name; action := 'created'; RETURN NEXT;
      END LOOP;
      FOR part IN
        SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'audit_log'::regclass
      LOOP
        upper_bound := substring(part.bound FROM 'TO \\(''([^'']+)''\\)')::timestamptz;
        IF upper_bound IS NOT NULL AND upper_bound <= now() - retention THEN
          EXECUTE format('DROP TABLE %I', part.relname);
          partition := part.relname; action := 'dropped'; RETURN NEXT;
        END IF;
      END LOOP;
    END
    $$`
  // The coming months exist from the start, so that no entry ever lacks a partition.
  yield* sql`SELECT * FROM audit_log_maintain(interval '100 years', 3)`
})
