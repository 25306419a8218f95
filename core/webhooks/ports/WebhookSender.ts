/**
 * The outbound side of webhooks: checks a URL against the outbound policy (https, and no private,
 * loopback, link-local or metadata address unless the operator allows it) and posts a delivery.
 * The check is made again at connect time for every address the host resolves to, since DNS can
 * change after an endpoint is created; redirects are not followed and the answer read is bounded.
 */
import { Context, type Effect } from "effect"
import type { WebhookUrlRejected } from "../domain/Webhooks.ts"

export interface OutboundRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** How a post ended; it never fails otherwise. */
export type SendOutcome =
  | {
      readonly kind: "answered"
      readonly status: number
      /** `Retry-After` in seconds, where the answer carried one that parses. */
      readonly retryAfterSeconds: number | null
      /** The start of the answer's body, bounded. */
      readonly body: string
      readonly durationMs: number
    }
  | {
      readonly kind: "timeout" | "connection_failed" | "blocked"
      /** What went wrong, never including the request's headers or body. */
      readonly message: string
      readonly durationMs: number
    }

export class WebhookSender extends Context.Service<
  WebhookSender,
  {
    /** Whether the URL may receive webhooks now: its scheme, its form, and where its host resolves. */
    readonly check: (url: string) => Effect.Effect<void, WebhookUrlRejected>
    readonly send: (request: OutboundRequest) => Effect.Effect<SendOutcome>
  }
>()("core/WebhookSender") {}
