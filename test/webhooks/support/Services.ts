/**
 * The webhook services as tests run them: the management service and the worker over whichever
 * store the test gives, with the Node crypto under a fresh master key and the Node sender allowed
 * to reach receivers on 127.0.0.1 (as `WEBHOOK_ALLOWED_HOSTS=127.0.0.1:1-65535` allows them); the stores
 * with the dashboard's audit beside them (memory or PostgreSQL), over the pairs' harness.
 */
import { randomBytes } from "node:crypto"
import { Duration, Layer } from "effect"
import * as PgDashboardAuditLog from "../../../adapters/postgres/PgDashboardAuditLog.ts"
import * as PgWebhookDeliveryStore from "../../../adapters/postgres/PgWebhookDeliveryStore.ts"
import * as PgWebhookEndpointStore from "../../../adapters/postgres/PgWebhookEndpointStore.ts"
import * as NodeWebhookCrypto from "../../../adapters/webhooks/NodeWebhookCrypto.ts"
import * as NodeWebhookSender from "../../../adapters/webhooks/NodeWebhookSender.ts"
import { type Allowance, parseAllowance } from "../../../adapters/webhooks/OutboundPolicy.ts"
import * as MemoryDashboardAuditLog from "../../../core/accounts/memory/DashboardAuditLog.ts"
import * as MemoryWebhookDeliveryStore from "../../../core/webhooks/memory/WebhookDeliveryStore.ts"
import * as MemoryWebhookEndpointStore from "../../../core/webhooks/memory/WebhookEndpointStore.ts"
import { WebhookCrypto } from "../../../core/webhooks/ports/WebhookCrypto.ts"
import { WebhookSender } from "../../../core/webhooks/ports/WebhookSender.ts"
import { type DeliveryOptions, WebhookDelivery } from "../../../core/webhooks/services/WebhookDelivery.ts"
import { WebhookEndpoints } from "../../../core/webhooks/services/WebhookEndpoints.ts"
import * as MemoryHarness from "../../contracts/PairStore.memoryHarness.ts"
import * as PostgresHarness from "../../contracts/PairStore.postgresHarness.ts"

export const loopback = parseAllowance("127.0.0.1:1-65535") as Allowance

export const cryptoLayer = Layer.succeed(WebhookCrypto, NodeWebhookCrypto.make(new Map([[1, randomBytes(32)]])))

export const senderLayer = (options: { readonly timeout?: Duration.Duration } = {}) =>
  Layer.succeed(WebhookSender, NodeWebhookSender.make({ allowance: loopback, ...options }))

/** `WebhookEndpoints` and `WebhookDelivery`; the stores, the feed and the sender are the test's. */
export const services = WebhookEndpoints.layer.pipe(
  Layer.provideMerge(WebhookDelivery.layer),
  Layer.provideMerge(cryptoLayer)
)

export const workerOptions = (overrides: Partial<DeliveryOptions> = {}): DeliveryOptions => ({
  worker: "test-worker",
  concurrency: 4,
  perEndpoint: 2,
  // The whole worker, unless a test bounds an organization's share.
  perOrganization: overrides.concurrency ?? 4,
  lease: Duration.minutes(1),
  pollInterval: Duration.millis(20),
  ...overrides
})

/** The memory stores and dashboard audit, over the memory pairs' harness and its state. */
export const memoryStorage = Layer.mergeAll(
  MemoryWebhookEndpointStore.layerMemory,
  MemoryWebhookDeliveryStore.layerMemory,
  MemoryDashboardAuditLog.layerMemory
).pipe(Layer.provideMerge(MemoryHarness.layer))

/** The PostgreSQL stores and dashboard audit, over the PostgreSQL pairs' harness and its test database. */
export const postgresStorage = Layer.mergeAll(
  PgWebhookEndpointStore.layer,
  PgWebhookDeliveryStore.layer,
  PgDashboardAuditLog.layer
).pipe(Layer.provideMerge(PostgresHarness.layer))
