/**
 * The cryptography webhooks need, kept out of the core so that it depends on `effect` alone:
 * randomness for secrets and ids, the HMAC-SHA256 of Standard Webhooks' signatures, and the box
 * that seals endpoint secrets at rest (AES-256-GCM under a versioned master key). A sealed
 * secret names the master key's version, so that keys rotate without re-sealing at once.
 */
import { Context, type Effect, type Redacted } from "effect"

export class WebhookCrypto extends Context.Service<
  WebhookCrypto,
  {
    /** Fresh bytes from a cryptographic source. */
    readonly randomBytes: (size: number) => Uint8Array
    /**
     * The base64 HMAC-SHA256 of `content` under an endpoint secret (`whsec_` and base64 of its
     * key bytes; the key is the decoded bytes, as Standard Webhooks specifies).
     */
    readonly sign: (secret: Redacted.Redacted<string>, content: string) => string
    /** The secret sealed under the newest master key, as text to store. */
    readonly seal: (secret: Redacted.Redacted<string>) => Effect.Effect<string>
    /** The secret a sealed text holds; a text no master key opens is a fault (a defect). */
    readonly open: (sealed: string) => Effect.Effect<Redacted.Redacted<string>>
  }
>()("core/WebhookCrypto") {}
