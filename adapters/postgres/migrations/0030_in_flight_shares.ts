/**
 * Requests in flight without a row per request: `in_flight_shares` holds, per process, a leased
 * share of each key's budget in flight (`owner` the key's id) and of each organization's (`owner`
 * = `org_id`), and each process admits within its shares on its own
 * (`core/access/services/LeasedInFlight.ts`, the rules in `core/access/domain/InFlightShares.ts`).
 *
 * `grant_in_flight_shares` sets a process's shares of a key and its organization in one statement:
 * under a transaction-scoped lock on the organization (a key belongs to one), it drops the
 * organization's ended leases and the process's own two, then, if the others' live shares leave
 * what the admission needs of both caps, grants each what it wants as far as they leave, or else
 * one less than it needs (what is in use) as far as they leave, as `core/access/domain/InFlightShares.ts` says, naming the cap that fell short; being `VOLATILE`, each sum is read
 * in a snapshot taken once the lock is held, so the live shares never add up past a cap. A
 * renewal (a statement of the adapter's) only extends leases that have not ended and only shrinks
 * them, so it needs no lock: a lease that ended is gone for good, and its share returned.
 *
 * UNLOGGED, as `requests_in_flight` (migration 0016), which stays for builds before this one: they
 * count their rows while this build counts shares, each held to the caps on its own, while both
 * serve during a rollout.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE UNLOGGED TABLE in_flight_shares (
      org_id uuid NOT NULL,
      owner uuid NOT NULL,
      process_id uuid NOT NULL,
      share integer NOT NULL CHECK (share > 0),
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (org_id, owner, process_id)
    )`
  yield* sql.unsafe(`
    CREATE FUNCTION grant_in_flight_shares(
      p_process uuid, p_org uuid, p_key uuid, p_need_key integer, p_need_org integer,
      p_want_key integer, p_want_org integer,
      p_per_key integer, p_per_org integer, p_lease interval
    ) RETURNS TABLE (key_share integer, org_share integer, short text) LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      v_key integer;
      v_org integer;
      v_short text;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('in_flight_shares ' || p_org::text, 0));
      DELETE FROM in_flight_shares s WHERE s.org_id = p_org
        AND (s.expires_at <= clock_timestamp() OR (s.process_id = p_process AND s.owner IN (p_key, p_org)));
      SELECT greatest(0, p_per_key - coalesce(sum(s.share), 0))::integer INTO v_key
        FROM in_flight_shares s WHERE s.org_id = p_org AND s.owner = p_key;
      SELECT greatest(0, p_per_org - coalesce(sum(s.share), 0))::integer INTO v_org
        FROM in_flight_shares s WHERE s.org_id = p_org AND s.owner = p_org;
      IF p_need_key <= v_key AND p_need_org <= v_org THEN
        v_key := greatest(0, least(p_want_key, v_key));
        v_org := greatest(0, least(p_want_org, v_org));
      ELSE
        v_short := CASE WHEN p_need_key > v_key THEN 'key' ELSE 'organization' END;
        v_key := greatest(0, least(p_need_key - 1, v_key));
        v_org := greatest(0, least(p_need_org - 1, v_org));
      END IF;
      INSERT INTO in_flight_shares (org_id, owner, process_id, share, expires_at)
        SELECT p_org, g.owner, p_process, g.share, clock_timestamp() + p_lease
        FROM (VALUES (p_key, v_key), (p_org, v_org)) AS g (owner, share) WHERE g.share > 0;
      RETURN QUERY SELECT v_key, v_org, v_short;
    END $$`)
})
