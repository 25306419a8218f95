/**
 * `verifyWebhook` against the reference implementation of Standard Webhooks (the `standardwebhooks`
 * package): what it signs we accept, what it refuses we refuse; and as laws over random bodies
 * (non-ASCII included) and random secrets: a signed webhook verifies, a flipped byte anywhere does not.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Webhook } from "standardwebhooks"
import { verifyWebhook, WebhookVerificationError } from "../../client/src/mod.ts"

// The reference reads the system clock: ours is given the same second, so both judge one timestamp alike.
const nowSeconds = Math.floor(Date.now() / 1000)
const now = nowSeconds * 1000
const clock = { now: () => now }

const secretOf = (bytes: Uint8Array) => `whsec_${Buffer.from(bytes).toString("base64")}`
const arbitrarySecret = fc.uint8Array({ minLength: 1, maxLength: 64 }).map(secretOf)
// JSON text with any characters, as an event's body is: a JSON value serialised.
const arbitraryBody = fc.jsonValue().map((value) => JSON.stringify({ data: value }))
const arbitraryId = fc.stringMatching(/^msg_[0-9A-Za-z]{1,32}$/)

/** The reference's headers for `body`, signed at `seconds`. */
const signed = (secret: string, id: string, body: string, seconds = nowSeconds) => ({
  "webhook-id": id,
  "webhook-timestamp": String(seconds),
  "webhook-signature": new Webhook(secret).sign(id, new Date(seconds * 1000), body)
})

const reason = async (promise: Promise<unknown>) =>
  promise.then(
    () => assert.fail("expected the webhook to be refused"),
    (error: unknown) => {
      assert.instanceOf(error, WebhookVerificationError)
      return (error as WebhookVerificationError).reason
    }
  )

describe("verifyWebhook", () => {
  it("accepts what the reference signs, returning the body's JSON, from a Headers or a plain record", () =>
    fc.assert(
      fc.asyncProperty(arbitrarySecret, arbitraryId, arbitraryBody, async (secret, id, body) => {
        const headers = signed(secret, id, body)
        assert.deepStrictEqual(await verifyWebhook(body, headers, secret, clock), JSON.parse(body))
        assert.deepStrictEqual(new Webhook(secret).verify(body, headers), JSON.parse(body))
        assert.deepStrictEqual(
          await verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret, clock),
          JSON.parse(body)
        )
      }),
      { numRuns: 100 }
    ))

  it("refuses a body, id or timestamp with any byte flipped, as the reference does", () =>
    fc.assert(
      fc.asyncProperty(
        arbitrarySecret,
        arbitraryId,
        arbitraryBody,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        async (secret, id, body, at, mask) => {
          const headers = signed(secret, id, body)
          const bytes = new TextEncoder().encode(body)
          bytes[at % bytes.length]! ^= mask
          assert.strictEqual(await reason(verifyWebhook(bytes, headers, secret, clock)), "signature_mismatch")
          assert.throws(() => new Webhook(secret).verify(Buffer.from(bytes), headers))
          const otherId = `${id}x`
          assert.strictEqual(
            await reason(verifyWebhook(body, { ...headers, "webhook-id": otherId }, secret, clock)),
            "signature_mismatch"
          )
          assert.strictEqual(
            await reason(
              verifyWebhook(body, { ...headers, "webhook-timestamp": String(nowSeconds - 1) }, secret, clock)
            ),
            "signature_mismatch"
          )
        }
      ),
      { numRuns: 100 }
    ))

  it("refuses a signature made with another secret, whatever the two secrets", () =>
    fc.assert(
      fc.asyncProperty(arbitrarySecret, arbitrarySecret, arbitraryBody, async (secret, other, body) => {
        fc.pre(secret !== other)
        const headers = signed(other, "msg_1", body)
        assert.strictEqual(await reason(verifyWebhook(body, headers, secret, clock)), "signature_mismatch")
        assert.throws(() => new Webhook(secret).verify(body, { ...headers }))
      }),
      { numRuns: 50 }
    ))

  it("accepts a webhook signed with either secret while one is rotated: several signatures in one header", () =>
    fc.assert(
      fc.asyncProperty(arbitrarySecret, arbitrarySecret, arbitraryBody, async (current, previous, body) => {
        const signature = `${signed(previous, "msg_1", body)["webhook-signature"]} v2,ignored ${
          signed(current, "msg_1", body)["webhook-signature"]
        }`
        const headers = { ...signed(current, "msg_1", body), "webhook-signature": signature }
        for (const secret of [current, previous]) {
          assert.deepStrictEqual(await verifyWebhook(body, headers, secret, clock), JSON.parse(body))
        }
      }),
      { numRuns: 50 }
    ))

  it("takes the secret with or without its whsec_ prefix, as the reference does", async () => {
    const secret = secretOf(new Uint8Array(32).fill(7))
    const body = '{"type":"webhook.test"}'
    const headers = signed(secret, "msg_1", body)
    assert.deepStrictEqual(await verifyWebhook(body, headers, secret.slice("whsec_".length), clock), JSON.parse(body))
  })

  it("allows five minutes of clock difference either way, and not a second more", async () => {
    const secret = secretOf(new Uint8Array(32).fill(1))
    for (const skew of [-300, 0, 300]) {
      const headers = signed(secret, "msg_1", "[]", nowSeconds + skew)
      assert.deepStrictEqual(await verifyWebhook("[]", headers, secret, clock), JSON.parse("[]"))
    }
    assert.strictEqual(
      await reason(verifyWebhook("{}", signed(secret, "msg_1", "{}", nowSeconds - 301), secret, clock)),
      "timestamp_too_old"
    )
    assert.strictEqual(
      await reason(verifyWebhook("{}", signed(secret, "msg_1", "{}", nowSeconds + 301), secret, clock)),
      "timestamp_too_new"
    )
  })

  it("names what is wrong with missing headers, a malformed timestamp or secret, never echoing the secret", async () => {
    const secret = secretOf(new Uint8Array(32).fill(3))
    const headers = signed(secret, "msg_1", "{}")
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"] as const) {
      const { [name]: _, ...rest } = headers
      assert.strictEqual(await reason(verifyWebhook("{}", rest, secret, clock)), "headers_missing")
    }
    for (const timestamp of ["", "1.5", "-1", "soon"]) {
      assert.strictEqual(
        await reason(verifyWebhook("{}", { ...headers, "webhook-timestamp": timestamp }, secret, clock)),
        "timestamp_invalid"
      )
    }
    const refused = await verifyWebhook("{}", headers, "whsec_not base64!", clock).catch((error: Error) => error)
    assert.instanceOf(refused, WebhookVerificationError)
    assert.strictEqual((refused as WebhookVerificationError).reason, "secret_invalid")
    assert.notInclude((refused as Error).message, "not base64")
  })
})
