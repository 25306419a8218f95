/**
 * A sync of an organization's first pair with documents the test writes, through the PostgreSQL
 * pair store's session as the engine would run it: for tests that need the feed and the list to
 * change while a client reads them.
 */
import { DateTime, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { type FetchedDocument, planPairSync } from "../../core/receivables/domain/PairSync.ts"
import { PairStore } from "../../core/receivables/ports/PairStore.ts"

/** A portal document of the key and status text, the other fields fixed. */
export const document = (key: string, portalStatus: string, source = "e2e"): FetchedDocument => ({
  documentKey: key,
  vendorReceivableId: `INV-${key}`,
  amountCents: 12_500,
  currency: "EUR",
  receivableDate: "2026-11-01",
  dueDate: "2026-12-01",
  portalStatus,
  poNumber: null,
  metadata: { source }
})

/**
 * Syncs an integration with `documents`, its next sync an hour after the sync. New receivables
 * take ids counted up from `idBase`, so that the tests of one database never draw the same one.
 */
export const makeIntegrationSync = (idBase: number) => {
  let serial = 0
  return (integration: string, documents: ReadonlyArray<FetchedDocument>) =>
    Effect.gen(function* () {
      const store = yield* PairStore
      const pair = yield* store.get(integration)
      yield* Effect.scoped(
        Effect.gen(function* () {
          const session = yield* store.session(pair, "e2e", yield* DateTime.now)
          const current = yield* session.receivablesByKeys(documents.map((d) => d.documentKey))
          const plan = planPairSync(current, documents, {
            refs: pair.refs,
            now: session.at,
            newReceivableId: () => `rcv_${(idBase + ++serial).toString(16).padStart(32, "0")}` as never
          })
          yield* session.writeChunk(plan)
          const counts = { fetched: documents.length, created: 0, updated: 0, unchanged: 0, quarantined: 0 }
          yield* session.finish({ counts, quarantine: [], nextSyncAt: DateTime.add(session.at, { hours: 1 }) })
        })
      )
    }).pipe(Effect.orDie)
}

/** Syncs `org`'s first pair (by id) with `documents`, as `makeIntegrationSync` does. */
export const makeScriptedSync = (idBase: number) => {
  const syncIntegration = makeIntegrationSync(idBase)
  return (org: string, documents: ReadonlyArray<FetchedDocument>) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ id: string }>`SELECT id FROM integrations WHERE org_id = ${org} ORDER BY id LIMIT 1`
      yield* syncIntegration(row!.id, documents)
    }).pipe(Effect.orDie)
}
