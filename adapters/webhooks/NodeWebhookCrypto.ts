/**
 * `WebhookCrypto` over `node:crypto`: HMAC-SHA256 signatures under the decoded bytes of an
 * endpoint secret, as Standard Webhooks specifies, and secrets sealed with AES-256-GCM under the
 * key ring's newest master key, as `v<version>:<base64 of nonce, ciphertext and tag>`.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto"
import { Effect, Layer, Redacted } from "effect"
import { secretPrefix } from "../../core/webhooks/domain/WebhookSigning.ts"
import { WebhookCrypto } from "../../core/webhooks/ports/WebhookCrypto.ts"
import { type KeyRing, keyRing } from "./SecretKeyRing.ts"

const nonceBytes = 12
const tagBytes = 16

/** The crypto over a given key ring. */
export const make = (ring: KeyRing) => {
  const newest = Math.max(...ring.keys())
  const sealingKey = ring.get(newest)!

  const sign = (secret: Redacted.Redacted<string>, content: string) => {
    const text = Redacted.value(secret)
    const key = Buffer.from(text.startsWith(secretPrefix) ? text.slice(secretPrefix.length) : text, "base64")
    return createHmac("sha256", key).update(content, "utf8").digest("base64")
  }

  const seal = (secret: Redacted.Redacted<string>) =>
    Effect.sync(() => {
      const nonce = randomBytes(nonceBytes)
      const cipher = createCipheriv("aes-256-gcm", sealingKey, nonce)
      const sealed = Buffer.concat([
        nonce,
        cipher.update(Redacted.value(secret), "utf8"),
        cipher.final(),
        cipher.getAuthTag()
      ])
      return `v${newest}:${sealed.toString("base64")}`
    })

  // A sealed secret no key opens means a master key was removed too soon: a fault for operators,
  // told without the sealed text.
  const open = (sealed: string) =>
    Effect.try({
      try: () => {
        const match = /^v(\d+):(.+)$/.exec(sealed)
        const key = match === null ? undefined : ring.get(Number(match[1]))
        if (match === null || key === undefined) throw new Error("sealed under a master key no longer listed")
        const bytes = Buffer.from(match[2]!, "base64")
        const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, nonceBytes))
        decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes))
        const plain = Buffer.concat([
          decipher.update(bytes.subarray(nonceBytes, bytes.length - tagBytes)),
          decipher.final()
        ])
        return Redacted.make(plain.toString("utf8"))
      },
      catch: (error) =>
        new Error(`a webhook secret cannot be opened: ${error instanceof Error ? error.message : "unknown"}`)
    }).pipe(Effect.orDie)

  return WebhookCrypto.of({ randomBytes: (size) => new Uint8Array(randomBytes(size)), sign, seal, open })
}

export const layer = Layer.effect(WebhookCrypto, Effect.map(keyRing, make))
