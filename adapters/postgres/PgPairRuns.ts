/**
 * A run's lease and staging over PostgreSQL (migration 0027): the fetch phase of a sync. Every
 * statement here is one round trip on a pooled connection, outside any transaction: a run holds
 * no connection while its portal answers. A chunk of documents is staged in one statement, as one
 * text array unnested. Runs whose leases ran out are swept, with what they staged, as each new
 * run starts. Imports no other adapter.
 */
import { randomUUID } from "node:crypto"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { FetchedDocument } from "../../core/receivables/domain/PairSync.ts"
import type { Pair, RunLease } from "../../core/receivables/ports/PairStore.ts"
import { texts } from "./PgPairRows.ts"

/** Starts runs; see `PairStore.startRun`. `applied` names the runs whose sessions dropped them already. */
export const makeRuns = (applied: Set<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const drop = (id: string) =>
      Effect.suspend(() =>
        applied.delete(id)
          ? Effect.void
          : Effect.ignore(sql`
              WITH lease AS (DELETE FROM sync_leases WHERE run_id = ${id})
              DELETE FROM sync_staging WHERE run_id = ${id}`)
      )

    return Effect.fnUntraced(function* (integration: Pair, worker: string, lease: Duration.Duration) {
      const id = randomUUID()
      const until = sql`clock_timestamp() + ${Duration.toMillis(lease)} * interval '1 millisecond'`
      // A lease held by an apply (`FOR KEY SHARE`) is skipped even when it ran out: that apply
      // checked it in time and reads its staging still.
      yield* Effect.acquireRelease(
        Effect.orDie(sql`
          WITH dead AS (
            SELECT run_id FROM sync_leases WHERE expires_at < clock_timestamp() FOR UPDATE SKIP LOCKED),
          gone AS (DELETE FROM sync_leases l USING dead WHERE l.run_id = dead.run_id RETURNING l.run_id),
          swept AS (DELETE FROM sync_staging s USING gone WHERE s.run_id = gone.run_id)
          INSERT INTO sync_leases (run_id, org_id, integration_id, worker, expires_at)
          VALUES (${id}, ${integration.orgId}, ${integration.id}, ${worker}, ${until})`),
        () => drop(id)
      )
      let staged = 0
      // Staged only while the lease lives: a lost run leaves nothing behind for a sweep to find.
      const stage = (documents: ReadonlyArray<FetchedDocument>) =>
        Effect.suspend(() => {
          const first = staged
          staged += documents.length
          return documents.length === 0
            ? Effect.void
            : Effect.orDie(sql`
                INSERT INTO sync_staging (run_id, ordinal, document)
                SELECT ${id}, ${first - 1} + s.ordinal, s.document
                FROM unnest(${texts(documents.map((document) => JSON.stringify(document)))}::text[])
                  WITH ORDINALITY AS s(document, ordinal)
                WHERE EXISTS (SELECT 1 FROM sync_leases WHERE run_id = ${id})`)
        })
      const renew = Effect.map(
        Effect.orDie(sql<{ held: boolean }>`
          UPDATE sync_leases SET expires_at = ${until}
          WHERE run_id = ${id} AND expires_at >= clock_timestamp()
          RETURNING true AS held`),
        (rows) => rows.length > 0
      )
      return { id, stage, renew } satisfies RunLease
    })
  })
