/**
 * The second factor's lock expires: after a run of wrong codes no code is accepted until
 * `totp_locked_until`, for longer at each lock since the last right code (`totp_locks`), never for
 * good. The latest wrong code's time and client address are kept so that the account's owner is
 * told. A factor that the rule before this one had locked for good (20 wrong codes in a row) is
 * locked for 15 minutes from this migration instead, as its first lock.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE dashboard_users
      ADD COLUMN totp_locks integer NOT NULL DEFAULT 0 CHECK (totp_locks >= 0),
      ADD COLUMN totp_locked_until timestamptz,
      ADD COLUMN totp_last_wrong_at timestamptz,
      ADD COLUMN totp_last_wrong_address text CHECK (length(totp_last_wrong_address) <= 100),
      ADD CHECK (totp_last_wrong_address IS NULL OR totp_last_wrong_at IS NOT NULL)`
  yield* sql`
    UPDATE dashboard_users
    SET totp_wrong_codes = 0, totp_locks = 1, totp_locked_until = now() + interval '15 minutes'
    WHERE totp_wrong_codes >= 20`
})
