/**
 * Sign-in throttles shared by every process on the database (`core/accounts/services/SignInThrottle.ts`).
 *
 * `sign_in_attempts`: one row per attempt counted against a key (a throttle's table and its key:
 * an address, an account, an account and address), at `at_ms` in epoch milliseconds of the
 * database's clock, until `expires_ms` (the end of its policy's window), after which it counts for
 * nothing and may be deleted at any time. Rows rather than a count per key, because a right
 * password takes back its own attempt and nothing else, and a window slides.
 *
 * `sign_in_trusted`: the addresses that signed in to each account, its most recent ones
 * (`p_trusted_per_account`, kept by `settle_sign_in_attempt`).
 *
 * `record_sign_in_attempt` takes an advisory lock per key (in key order, so two attempts sharing
 * keys wait for each other and never deadlock), reads the clock once the locks are held, counts
 * each checked key in the window, in the caller's order, and writes the attempt against every key
 * only when none is full: a refused attempt writes nothing, so a flood from one address is refused
 * on the address's count and cannot grow the table. It returns the full keys' times, from which
 * the core computes the wait. One call is one statement, which a transaction-mode pooler runs as it
 * is.
 *
 * Both tables are UNLOGGED, as the API's limits are: a write costs no WAL flush, and after a crash
 * of the database every throttle starts empty and no address is trusted, which costs an attacker's
 * window at most its 15 minutes once, and the owner of an account nothing but the account-wide lock
 * applying to their address too until they sign in again.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE UNLOGGED TABLE sign_in_attempts (
      key text NOT NULL CHECK (length(key) <= 1000),
      at_ms double precision NOT NULL,
      expires_ms double precision NOT NULL
    )`
  yield* sql`CREATE INDEX sign_in_attempts_key ON sign_in_attempts (key, at_ms)`
  yield* sql`
    CREATE UNLOGGED TABLE sign_in_trusted (
      account text NOT NULL CHECK (length(account) <= 1000),
      address text NOT NULL CHECK (length(address) <= 100),
      at_ms double precision NOT NULL,
      PRIMARY KEY (account, address)
    )`
  yield* sql.unsafe(`
    CREATE FUNCTION record_sign_in_attempt(p_counted jsonb, p_account text, p_address text)
    RETURNS TABLE (now_ms double precision, full_index integer, times double precision[])
    LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      v_now double precision;
      v_trusted boolean;
      v_full boolean := false;
      v_times double precision[];
      c record;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('sign_in_attempts ' || k.key, 0))
        FROM (SELECT DISTINCT e->>'key' AS key FROM jsonb_array_elements(p_counted) e ORDER BY 1) k;
      v_now := extract(epoch FROM clock_timestamp()) * 1000;
      v_trusted := p_account IS NOT NULL
        AND EXISTS (SELECT 1 FROM sign_in_trusted t WHERE t.account = p_account AND t.address = p_address);
      FOR c IN
        SELECT e.ordinality::integer AS i, e.value->>'key' AS key, (e.value->>'failures')::integer AS failures,
          (e.value->>'windowMs')::double precision AS window_ms, (e.value->>'unlessTrusted')::boolean AS unless_trusted
        FROM jsonb_array_elements(p_counted) WITH ORDINALITY e ORDER BY e.ordinality
      LOOP
        CONTINUE WHEN c.unless_trusted AND v_trusted;
        SELECT array_agg(a.at_ms ORDER BY a.at_ms DESC) INTO v_times FROM sign_in_attempts a
          WHERE a.key = c.key AND a.at_ms > v_now - c.window_ms AND a.at_ms <= v_now;
        IF coalesce(cardinality(v_times), 0) >= c.failures THEN
          v_full := true;
          RETURN QUERY SELECT v_now, c.i, v_times;
        END IF;
      END LOOP;
      IF NOT v_full THEN
        INSERT INTO sign_in_attempts (key, at_ms, expires_ms)
          SELECT e->>'key', v_now, v_now + (e->>'windowMs')::double precision FROM jsonb_array_elements(p_counted) e;
        RETURN QUERY SELECT v_now, NULL::integer, NULL::double precision[];
      END IF;
    END $$`)
  yield* sql.unsafe(`
    CREATE FUNCTION settle_sign_in_attempt(
      p_at double precision, p_take_back text[], p_clear text, p_account text, p_address text,
      p_trusted_per_account integer
    ) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      DELETE FROM sign_in_attempts a WHERE a.ctid IN (
        SELECT DISTINCT ON (b.key) b.ctid FROM sign_in_attempts b WHERE b.key = ANY(p_take_back) AND b.at_ms = p_at);
      DELETE FROM sign_in_attempts a WHERE a.key = p_clear;
      IF p_account IS NOT NULL THEN
        INSERT INTO sign_in_trusted AS t (account, address, at_ms)
          VALUES (p_account, p_address, extract(epoch FROM clock_timestamp()) * 1000)
          ON CONFLICT (account, address) DO UPDATE SET at_ms = excluded.at_ms;
        DELETE FROM sign_in_trusted t WHERE t.account = p_account AND t.address NOT IN (
          SELECT k.address FROM sign_in_trusted k WHERE k.account = p_account ORDER BY k.at_ms DESC
          LIMIT p_trusted_per_account);
      END IF;
    END $$`)
})
