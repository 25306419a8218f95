/**
 * A new organization with one live key, stored as the CLI stores one, for the pooler suites: each
 * case names a seed of its own, so that no two cases share a key or its limits.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { makeApiKey, secretBytes } from "../../../core/access/domain/ApiKey.ts"

export const newOrganization = (name: string, keySeed: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(keySeed))
    const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES (${name}) RETURNING id`
    const [stored] = yield* sql<{ id: string }>`INSERT INTO api_keys (org_id, key_hash, display_start)
      VALUES (${org!.id}, sha256(convert_to(${key}, 'UTF8')), ${key.slice(0, 12)}) RETURNING id`
    return { orgId: org!.id, keyId: stored!.id, key }
  }).pipe(Effect.orDie)
