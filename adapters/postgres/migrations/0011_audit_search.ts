/**
 * The dashboard's audit page reads one organization's entries in a time window, newest first,
 * a page at a time after the last (at, id) shown. `audit_log_by_org_at` (0008) orders by `at`
 * alone, so entries of the same instant would be sorted after reading; this index gives the
 * page's whole order, on every monthly partition (an index on the parent is built on each).
 * A search by request id reads its own small index rather than the window's entries. The old
 * index stays: 0008 is released, and the API's readers may use it.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX audit_log_by_org_at_id ON audit_log (org_id, at DESC, id DESC)`
  yield* sql`CREATE INDEX audit_log_by_org_request ON audit_log (org_id, request_id)`
})
