/**
 * Checking that a webhook came from the API, as Standard Webhooks define it: the HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>` under the endpoint's `whsec_` secret, among the `v1,`
 * signatures of `webhook-signature` (several while a secret is rotated), with a timestamp within
 * five minutes. Web Crypto only (Node.js 20+, browsers, Deno, workers): no dependency.
 */
import type { Event } from "./wire.ts"

/** Why a webhook was refused; nothing in it repeats the secret. */
export type WebhookVerificationFailure =
  | "headers_missing"
  | "secret_invalid"
  | "timestamp_invalid"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "signature_mismatch"

const messages: Record<WebhookVerificationFailure, string> = {
  headers_missing: "The webhook has no webhook-id, webhook-timestamp or webhook-signature header.",
  secret_invalid: "The secret is not a webhook secret: whsec_ followed by base64.",
  timestamp_invalid: "The webhook-timestamp header is not a whole number of seconds.",
  timestamp_too_old: "The webhook's timestamp is older than the tolerance: a replayed or much delayed delivery.",
  timestamp_too_new: "The webhook's timestamp is ahead of the tolerance: check this machine's clock.",
  signature_mismatch: "No signature of the webhook matches its body under this secret."
}

/** A webhook that did not verify: do not act on its body. */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationFailure

  constructor(reason: WebhookVerificationFailure) {
    super(messages[reason])
    this.name = "WebhookVerificationError"
    this.reason = reason
  }
}

/** Headers as `fetch` (a `Headers`), Node.js (`IncomingHttpHeaders`) or a plain record give them. */
export type WebhookHeaders =
  | { readonly get: (name: string) => string | null }
  | { readonly [name: string]: string | ReadonlyArray<string> | undefined }

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, in seconds. Default 300, as Standard Webhooks. */
  readonly toleranceSeconds?: number
  /** Now in milliseconds since the epoch; for tests. */
  readonly now?: () => number
}

const header = (headers: WebhookHeaders, name: string): string | undefined => {
  if (typeof headers.get === "function") return (headers.get as (name: string) => string | null)(name) ?? undefined
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue
    return typeof value === "string" ? value : Array.isArray(value) ? value.join(" ") : undefined
  }
  return undefined
}

const base64Bytes = (text: string): Uint8Array<ArrayBuffer> | undefined => {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return undefined
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0))
  } catch {
    return undefined
  }
}

const secretKey = (secret: string): Uint8Array<ArrayBuffer> => {
  const bytes = base64Bytes(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret)
  if (bytes === undefined || bytes.length === 0) throw new WebhookVerificationError("secret_invalid")
  return bytes
}

const utf8 = new TextEncoder()

const signedContent = (id: string, timestamp: string, body: string | Uint8Array): Uint8Array<ArrayBuffer> => {
  const head = utf8.encode(`${id}.${timestamp}.`)
  const payload = typeof body === "string" ? utf8.encode(body) : body
  const content = new Uint8Array(head.length + payload.length)
  content.set(head)
  content.set(payload, head.length)
  return content
}

/**
 * Verifies a webhook and returns its event: `body` exactly as received (the raw text or bytes,
 * before any JSON parsing), its headers, and the endpoint's secret (`whsec_...`, as the API
 * answered it at creation or rotation). Throws `WebhookVerificationError` otherwise. Signatures
 * are compared by Web Crypto's `verify`, in constant time.
 */
export const verifyWebhook = async (
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {}
): Promise<Event> => {
  const key = secretKey(secret)
  const id = header(headers, "webhook-id")
  const timestamp = header(headers, "webhook-timestamp")
  const signatures = header(headers, "webhook-signature")
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    throw new WebhookVerificationError("headers_missing")
  }
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError("timestamp_invalid")
  const skew = Number(timestamp) - Math.floor((options.now ?? Date.now)() / 1000)
  const tolerance = options.toleranceSeconds ?? 300
  if (skew < -tolerance) throw new WebhookVerificationError("timestamp_too_old")
  if (skew > tolerance) throw new WebhookVerificationError("timestamp_too_new")

  const hmac = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["verify"])
  const content = signedContent(id, timestamp, body)
  // Every `v1,` signature is checked, none skipped once one matched, so the time taken says
  // nothing about which one did; other versions are ignored, as the standard says.
  let matched = false
  for (const entry of signatures.split(" ")) {
    const comma = entry.indexOf(",")
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue
    const signature = base64Bytes(entry.slice(comma + 1))
    if (signature === undefined) continue
    if (await crypto.subtle.verify("HMAC", hmac, signature, content)) matched = true
  }
  if (!matched) throw new WebhookVerificationError("signature_mismatch")
  return JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body)) as Event
}
