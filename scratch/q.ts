import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "../adapters/postgres/Database.ts"

const prog = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows =
    yield* sql`SELECT now() AS ts, current_date AS d, 12345678901::bigint AS b, '{"a":"b"}'::jsonb AS j, json_build_object('t', now()) AS jb, gen_random_uuid() AS u, NULL::timestamptz AS n`
  console.log(rows)
  const f = [sql`1 = 1`, sql`2 = ${2}`]
  console.log(yield* sql`SELECT 1 AS x WHERE ${sql.and(f)}`)
})
Effect.runPromise(
  prog.pipe(Effect.provide(Database.layerEmbedded({ baseDir: "/tmp/pgtry", port: 54400 })), Effect.scoped)
)
