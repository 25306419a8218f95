/**
 * Signatures as Standard Webhooks defines them, held to the reference implementation (the
 * `standardwebhooks` package): for any secret, id, time and body, what we sign it verifies and
 * what it signs we produce, beyond ASCII included.
 */
import { randomBytes } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Redacted } from "effect"
import fc from "fast-check"
import { Webhook } from "standardwebhooks"
import * as NodeWebhookCrypto from "../../adapters/webhooks/NodeWebhookCrypto.ts"
import { deliveryHeaders, secretFromBytes, signedContent } from "../../core/webhooks/domain/WebhookSigning.ts"

const crypto = NodeWebhookCrypto.make(new Map([[1, randomBytes(32)]]))

describe("webhook signatures", () => {
  it("the reference verifier accepts ours, and signs as we do", () =>
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.stringMatching(/^evt_[0-9a-f]{32}$/),
        fc.string({ unit: "grapheme", maxLength: 200 }),
        (bytes, id, note) => {
          // The verifier parses what it verifies: a body is JSON, as every delivery's is.
          const body = JSON.stringify({ note })
          const secret = secretFromBytes(bytes)
          const timestamp = Math.floor(Date.now() / 1000)
          const signature = crypto.sign(Redacted.make(secret), signedContent(id, timestamp, body))
          const headers = deliveryHeaders(id, timestamp, [signature])
          new Webhook(secret).verify(body, headers)
          assert.strictEqual(new Webhook(secret).sign(id, new Date(timestamp * 1000), body), `v1,${signature}`)
        }
      )
    ))

  it("a secret is whsec_ and the base64 of 32 bytes", () => {
    assert.match(secretFromBytes(new Uint8Array(32).fill(255)), /^whsec_\/{42}8=$/)
  })

  it("with two secrets, either verifies, and a third does not", () => {
    const [a, b, c] = [1, 2, 3].map(() => secretFromBytes(randomBytes(32)))
    const id = "evt_00000000000000010000000000000001"
    const timestamp = Math.floor(Date.now() / 1000)
    const body = '{"note":"Zürich – 東京"}'
    const signatures = [a!, b!].map((secret) => crypto.sign(Redacted.make(secret), signedContent(id, timestamp, body)))
    const headers = deliveryHeaders(id, timestamp, signatures)
    new Webhook(a!).verify(body, headers)
    new Webhook(b!).verify(body, headers)
    assert.throws(() => new Webhook(c!).verify(body, headers))
  })

  it.effect("a sealed secret opens to itself, never shows it, and does not open under another master key", () =>
    Effect.gen(function* () {
      const secret = Redacted.make(secretFromBytes(randomBytes(32)))
      const sealed = yield* crypto.seal(secret)
      assert.notInclude(sealed, Redacted.value(secret).slice(6))
      assert.match(sealed, /^v1:/)
      assert.strictEqual(Redacted.value(yield* crypto.open(sealed)), Redacted.value(secret))
      const other = NodeWebhookCrypto.make(new Map([[1, randomBytes(32)]]))
      const exit = yield* Effect.exit(other.open(sealed))
      assert.isTrue(Exit.isFailure(exit))
      assert.notInclude(String(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""), Redacted.value(secret))
    })
  )

  it.effect("a newer master key seals, and the older still opens what it sealed", () =>
    Effect.gen(function* () {
      const older = randomBytes(32)
      const secret = Redacted.make(secretFromBytes(randomBytes(32)))
      const sealed = yield* NodeWebhookCrypto.make(new Map([[1, older]])).seal(secret)
      const rotated = NodeWebhookCrypto.make(
        new Map([
          [1, older],
          [2, randomBytes(32)]
        ])
      )
      assert.strictEqual(Redacted.value(yield* rotated.open(sealed)), Redacted.value(secret))
      assert.match(yield* rotated.seal(secret), /^v2:/)
    })
  )
})
