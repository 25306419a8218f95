/**
 * partner-receivables-client: a typed client for the Partner Receivables API. No dependencies;
 * it needs a `fetch` (Node.js 20+, browsers). Start with `new PartnerReceivables({ apiKey, baseUrl })`.
 */
export { type ClientOptions, PartnerReceivables } from "./client.ts"
export {
  ApiError,
  AuthenticationError,
  type ClientError,
  ConnectionError,
  InvalidRequestError,
  PartnerReceivablesError,
  PermissionError,
  RateLimitError
} from "./errors.ts"
export type * from "./params.ts"
export type { RetryOptions } from "./retry.ts"
export type { PairSchedule } from "./schedules.ts"
export type {
  EventsCheckpoint,
  SyncCheckpoint,
  SyncedReceivable,
  SyncOptions,
  SyncResult,
  WatermarkCheckpoint
} from "./sync.ts"
export type { Clock, RequestOptions } from "./transport.ts"
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationFailure
} from "./webhooks.ts"
export type * from "./wire.ts"
