import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgAuditLog from "../../adapters/postgres/PgAuditLog.ts"
import type { ApiKeyId } from "../../core/shared/domain/Ids.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { describeAuditLog } from "./AuditLog.contract.ts"

// Usage is counted per stored key: two keys of a new organization, stored as the app stores them.
const storedKeys = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [org] = yield* sql<{ readonly id: string }>`INSERT INTO organizations (name) VALUES ('Audit') RETURNING id`
  const keys = yield* sql<{ readonly id: ApiKeyId }>`
    INSERT INTO api_keys (org_id, name, key_hash, display_start)
    SELECT ${org!.id}, 'key ' || n, sha256(convert_to(gen_random_uuid()::text, 'UTF8')), 'pr_live_'
    FROM generate_series(1, 2) n RETURNING id`
  return [keys[0]!.id, keys[1]!.id] as const
}).pipe(Effect.orDie)

describeAuditLog("PostgreSQL", PgAuditLog.layer.pipe(Layer.provideMerge(TestDatabase.layer)), storedKeys)
