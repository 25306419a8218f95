/**
 * The app's sender as its settings make it: the API's port, the metrics' port and the database's
 * (`DATABASE_URL`, or the embedded server's) are never reached, even where `WEBHOOK_ALLOWED_HOSTS`
 * opens every port of loopback; and the allowance's old form, a host without a port, stops the
 * start with a line that says how to write it.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { WebhookSenderLive } from "../../app/Layers.ts"
import * as Settings from "../../app/Settings.ts"
import { WebhookSender } from "../../core/webhooks/ports/WebhookSender.ts"
import { receiver } from "./support/Receiver.ts"

const withEnv = (env: Record<string, string>) =>
  Effect.provide(Layer.succeed(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env })))

const post = (url: string) => ({ url, headers: { "content-type": "application/json" }, body: "{}" })
const portOf = (url: string) => new URL(url).port

const appSender = (env: Record<string, string>) =>
  Effect.service(WebhookSender).pipe(
    Effect.provide(WebhookSenderLive),
    withEnv({ WEBHOOK_ALLOWED_HOSTS: "127.0.0.1:1-65535", ...env })
  )

describe("the app's webhook sender and the service's own listeners", () => {
  it.effect("the API's, the metrics' and DATABASE_URL's ports are refused although loopback is open", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const [api, metrics, database, elsewhere] = yield* Effect.all([receiver(), receiver(), receiver(), receiver()])
        const sender = yield* appSender({
          PORT: portOf(api.url),
          METRICS_PORT: portOf(metrics.url),
          DATABASE_URL: `postgres://app:secret@localhost:${portOf(database.url)}/app`
        })
        for (const own of [api, metrics, database]) {
          const sent = yield* sender.send(post(own.url))
          assert.strictEqual(sent.kind, "blocked", own.url)
          assert.strictEqual((yield* Effect.flip(sender.check(own.url)))._tag, "WebhookUrlRejected")
          assert.lengthOf(own.received, 0)
        }
        assert.strictEqual((yield* sender.send(post(elsewhere.url))).kind, "answered")
      })
    )
  )

  it.effect("the embedded database's port is refused", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const [database, elsewhere] = yield* Effect.all([receiver(), receiver()])
        const sender = yield* appSender({ EMBEDDED_POSTGRES_PORT: portOf(database.url) })
        assert.strictEqual((yield* sender.send(post(database.url))).kind, "blocked")
        assert.lengthOf(database.received, 0)
        assert.strictEqual((yield* sender.send(post(elsewhere.url))).kind, "answered")
      })
    )
  )

  it.effect("a host without a port, the old form, stops the start saying how to write it", () =>
    Effect.gen(function* () {
      const refused = yield* Effect.flip(Settings.validate.pipe(withEnv({ WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" })))
      assert.deepStrictEqual(refused.problems, [
        'WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" names no port: write host:port or host:first-last (127.0.0.1:8080, hooks.internal:8000-8099)'
      ])
    })
  )
})
