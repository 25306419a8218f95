/**
 * The sender over real sockets, with a resolver the test controls: every address a name resolves
 * to is checked when a URL is accepted and again at connect time (DNS can change); redirects are
 * not followed; an answer is read only so far; no answer in time is a timeout.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import * as NodeWebhookSender from "../../adapters/webhooks/NodeWebhookSender.ts"
import { type Allowance, parseAllowance } from "../../adapters/webhooks/OutboundPolicy.ts"
import { receiver } from "./support/Receiver.ts"

const names = new Map<string, ReadonlyArray<string>>()
const resolve: NodeWebhookSender.Resolve = async (host) => {
  const found = names.get(host)
  if (found === undefined) throw new Error(`${host}: not found`)
  return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
}

const sender = (allowance = "", timeout = Duration.seconds(5)) =>
  NodeWebhookSender.make({ allowance: parseAllowance(allowance) as Allowance, resolve, timeout })

const post = (url: string) => ({ url, headers: { "content-type": "application/json" }, body: "{}" })

describe("the webhook sender", () => {
  it.effect("a name is checked at creation and again at connect time, on every address it resolves to", () =>
    Effect.gen(function* () {
      const hooks = sender()
      names.set("hooks.example", ["93.184.216.34"])
      yield* hooks.check("https://hooks.example/in")
      names.set("hooks.example", ["93.184.216.34", "10.0.0.7"])
      assert.strictEqual((yield* Effect.flip(hooks.check("https://hooks.example/in")))._tag, "WebhookUrlRejected")
      // The name's address changed after the endpoint was accepted: the post is refused, unsent.
      names.set("hooks.example", ["169.254.169.254"])
      const sent = yield* hooks.send(post("https://hooks.example/in"))
      assert.strictEqual(sent.kind, "blocked")
      names.set("hooks.example", ["::ffff:127.0.0.1"])
      assert.strictEqual((yield* hooks.send(post("https://hooks.example/in"))).kind, "blocked")
      assert.strictEqual((yield* hooks.send(post("https://[::1]/in"))).kind, "blocked")
      assert.strictEqual(
        (yield* Effect.flip(hooks.check("https://missing.example/"))).message,
        "missing.example does not resolve"
      )
    })
  )

  it.effect("an allowed name reaches a receiver on loopback over http; a redirect is answered, not followed", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const hooks = yield* receiver((_, response) => response.writeHead(302, { location: "/elsewhere" }).end())
        const port = new URL(hooks.url).port
        names.set("receiver.test", ["127.0.0.1"])
        const allowed = sender("receiver.test")
        yield* allowed.check(`http://receiver.test:${port}/hooks`)
        const sent = yield* allowed.send(post(`http://receiver.test:${port}/hooks`))
        assert.strictEqual(sent.kind, "answered")
        assert.strictEqual(sent.kind === "answered" ? sent.status : 0, 302)
        assert.deepStrictEqual(
          hooks.received.map((r) => r.path),
          ["/hooks"]
        )
        // Not allowed by name, the same receiver is refused.
        names.set("other.test", ["127.0.0.1"])
        assert.strictEqual((yield* sender().send(post(`https://other.test:${port}/hooks`))).kind, "blocked")
      })
    )
  )

  it.effect("only the start of a long answer is read, and no answer in time is a timeout", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const hooks = yield* receiver((_, response) => response.writeHead(500).end("x".repeat(1_000_000)))
        const sent = yield* sender("127.0.0.1").send(post(hooks.url))
        assert.strictEqual(sent.kind === "answered" ? sent.body.length : -1, NodeWebhookSender.answerBytes)
        hooks.answer = () => {}
        const slow = yield* sender("127.0.0.1", Duration.millis(200)).send(post(hooks.url))
        assert.strictEqual(slow.kind, "timeout")
        assert.isAtLeast(slow.durationMs, 150)
      })
    )
  )
})
