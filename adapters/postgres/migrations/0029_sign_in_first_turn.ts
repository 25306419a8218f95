/**
 * `record_sign_in_attempt` also says whether the attempt goes first when password hashes wait
 * (`core/accounts/domain/FairQueue.ts`): its address signed in to the account before, and the key
 * `p_first_unless` (the account and address) held no attempt within its window. Answered by the
 * same call, so that the queue costs no round trip of its own. Otherwise as in migration 0021. A
 * function of its own (two more arguments, one more column), beside the former one, so that a
 * build before this one keeps working on this schema while both serve.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
    CREATE FUNCTION record_sign_in_attempt(
      p_counted jsonb, p_account text, p_address text, p_first_unless text, p_first_window_ms double precision
    )
    RETURNS TABLE (now_ms double precision, full_index integer, times double precision[], first boolean)
    LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      v_now double precision;
      v_trusted boolean;
      v_first boolean;
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
          RETURN QUERY SELECT v_now, c.i, v_times, false;
        END IF;
      END LOOP;
      IF NOT v_full THEN
        v_first := v_trusted AND (p_first_unless IS NULL OR NOT EXISTS (
          SELECT 1 FROM sign_in_attempts a WHERE a.key = p_first_unless
            AND a.at_ms > v_now - p_first_window_ms AND a.at_ms <= v_now));
        INSERT INTO sign_in_attempts (key, at_ms, expires_ms)
          SELECT e->>'key', v_now, v_now + (e->>'windowMs')::double precision FROM jsonb_array_elements(p_counted) e;
        RETURN QUERY SELECT v_now, NULL::integer, NULL::double precision[], v_first;
      END IF;
    END $$`)
})
