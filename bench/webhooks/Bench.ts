/**
 * What the webhook benchmarks share (`bench/webhooks/run.ts`, `bench/abuse/webhooks.ts`): the
 * webhook services over PostgreSQL with the Node sender allowed to loopback, an organization with
 * one pair, syncs that commit new receivables (one event each), and percentiles.
 */
import { randomBytes } from "node:crypto"
import type { PgClient } from "@effect/sql-pg"
import { DateTime, type Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgDashboardAuditLog from "../../adapters/postgres/PgDashboardAuditLog.ts"
import * as PgEventFeed from "../../adapters/postgres/PgEventFeed.ts"
import * as PgPairStore from "../../adapters/postgres/PgPairStore.ts"
import * as PgWebhookDeliveryStore from "../../adapters/postgres/PgWebhookDeliveryStore.ts"
import * as PgWebhookEndpointStore from "../../adapters/postgres/PgWebhookEndpointStore.ts"
import * as NodeWebhookCrypto from "../../adapters/webhooks/NodeWebhookCrypto.ts"
import * as NodeWebhookSender from "../../adapters/webhooks/NodeWebhookSender.ts"
import { type Allowance, parseAllowance } from "../../adapters/webhooks/OutboundPolicy.ts"
import { type FetchedDocument, planPairSync } from "../../core/receivables/domain/PairSync.ts"
import { PairStore } from "../../core/receivables/ports/PairStore.ts"
import type { OrgId, ReceivableId } from "../../core/shared/domain/Ids.ts"
import { WebhookCrypto } from "../../core/webhooks/ports/WebhookCrypto.ts"
import { WebhookSender } from "../../core/webhooks/ports/WebhookSender.ts"
import { WebhookDelivery } from "../../core/webhooks/services/WebhookDelivery.ts"
import { WebhookEndpoints } from "../../core/webhooks/services/WebhookEndpoints.ts"

/** The management service and the worker over PostgreSQL, sending to loopback within `timeout`. */
export const webhookServices = <E>(
  db: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, E>,
  timeout: Duration.Duration
) =>
  WebhookEndpoints.layer.pipe(
    Layer.provideMerge(WebhookDelivery.layer),
    Layer.provideMerge(
      Layer.mergeAll(
        PgWebhookEndpointStore.layer,
        PgWebhookDeliveryStore.layer,
        PgEventFeed.layer,
        PgDashboardAuditLog.layer,
        PgPairStore.layer,
        Layer.succeed(WebhookCrypto, NodeWebhookCrypto.make(new Map([[1, randomBytes(32)]]))),
        Layer.succeed(
          WebhookSender,
          NodeWebhookSender.make({ allowance: parseAllowance("127.0.0.1:1-65535") as Allowance, timeout })
        )
      )
    ),
    Layer.provideMerge(db)
  )

/** A new organization with one vendor-debtor pair, due in a day (no scheduler runs in the benchmarks). */
export const newPair = (name: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [org] = yield* sql<{ id: OrgId }>`INSERT INTO organizations (name) VALUES (${name}) RETURNING id`
    const [debtor] = yield* sql<{ id: string }>`INSERT INTO debtors (name) VALUES (${`${name} debtor`}) RETURNING id`
    const [vendor] = yield* sql<{ id: string }>`
      INSERT INTO vendors (org_id, name) VALUES (${org!.id}, 'Vendor') RETURNING id`
    const [pair] = yield* sql<{ id: string }>`
      INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at)
      VALUES (${org!.id}, ${vendor!.id}, ${debtor!.id}, 'simulator', now() + interval '1 day')
      RETURNING id`
    return { org: org!, pair: pair! }
  })

let serial = 0
const document = (key: string): FetchedDocument => ({
  documentKey: key,
  vendorReceivableId: `INV-${key}`,
  amountCents: 10_000,
  currency: "EUR",
  receivableDate: "2026-11-01",
  dueDate: "2026-12-01",
  portalStatus: "Submitted",
  poNumber: `PO-${key}`,
  metadata: { region: "EU" }
})

/** Commits a sync of `count` new receivables (one event each); answers when it committed. */
export const sync = (pairId: string, count: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const store = yield* PairStore
      const pair = yield* store.get(pairId)
      const session = yield* store.session(pair, "bench", yield* DateTime.now)
      const documents = Array.from({ length: count }, () => document(`d${++serial}`))
      const plan = planPairSync([], documents, {
        refs: pair.refs,
        now: session.at,
        newReceivableId: () => `rcv_${(++serial).toString(16).padStart(32, "0")}` as ReceivableId
      })
      yield* session.writeChunk(plan)
      const counts = { fetched: count, created: count, updated: 0, unchanged: 0, quarantined: 0 }
      yield* session.finish({ counts, quarantine: [], nextSyncAt: DateTime.add(session.at, { hours: 1 }) })
      return { committed: performance.now() }
    })
  )

export const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}
