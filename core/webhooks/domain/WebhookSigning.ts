/**
 * Standard Webhooks' signing, the parts that are plain text: the secret's form (`whsec_` and
 * base64 of 32 random bytes), the content signed (`id.timestamp.body`), the headers of a delivery
 * and the ids of webhooks' records. The HMAC itself is the `WebhookCrypto` port's. Depends on
 * `effect` only.
 */
import { Base64 } from "effect/encoding"
import type { WebhookAttemptId, WebhookDeliveryId, WebhookEndpointId } from "./Webhooks.ts"

export const secretPrefix = "whsec_"
export const secretBytes = 32

/** An endpoint secret from its key bytes. */
export const secretFromBytes = (bytes: Uint8Array): string => `${secretPrefix}${Base64.encode(bytes)}`

/** What a signature covers: the message id, the timestamp in seconds and the body, joined by dots. */
export const signedContent = (id: string, timestampSeconds: number, body: string): string =>
  `${id}.${timestampSeconds}.${body}`

/** The `webhook-signature` header: one `v1,<base64>` per secret that signs, separated by spaces. */
export const signatureHeader = (signatures: ReadonlyArray<string>): string =>
  signatures.map((signature) => `v1,${signature}`).join(" ")

export const userAgent = "PartnerReceivables-Webhooks/1"

/** The headers of a delivery; `signatures` are the base64 HMACs under each secret that signs. */
export const deliveryHeaders = (
  id: string,
  timestampSeconds: number,
  signatures: ReadonlyArray<string>
): Record<string, string> => ({
  "content-type": "application/json",
  "user-agent": userAgent,
  "webhook-id": id,
  "webhook-timestamp": String(timestampSeconds),
  "webhook-signature": signatureHeader(signatures)
})

const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")

/**
 * 16 bytes as hex, led by the milliseconds since 1970 in the first six, so that ids made later
 * sort later and keyset pages follow creation. The rest is random.
 */
const timeLed = (random: Uint8Array, epochMillis: number): string => {
  const bytes = Uint8Array.from(random.subarray(0, 16))
  for (let i = 5, time = epochMillis; i >= 0; i--, time = Math.floor(time / 256)) bytes[i] = time % 256
  return hex(bytes)
}

export const endpointId = (random: Uint8Array, epochMillis: number) =>
  `we_${timeLed(random, epochMillis)}` as WebhookEndpointId
export const deliveryId = (random: Uint8Array, epochMillis: number) =>
  `wd_${timeLed(random, epochMillis)}` as WebhookDeliveryId
export const attemptId = (random: Uint8Array, epochMillis: number) =>
  `wa_${timeLed(random, epochMillis)}` as WebhookAttemptId
/** A `webhook.test` message's id: an event id of its own, never one of the feed's. */
export const testEventId = (random: Uint8Array) => `evt_${hex(random.subarray(0, 16))}`
