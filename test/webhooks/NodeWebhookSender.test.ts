/**
 * The sender over real sockets, with a resolver the test controls: every address a name resolves
 * to is checked when a URL is accepted and again at connect time (DNS can change), on the port
 * the URL names, and the service's own listeners are refused however they are named; redirects
 * are not followed; an answer is read only so far; no answer in time is a timeout.
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
        const allowed = sender("receiver.test:1-65535")
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
        const sent = yield* sender("127.0.0.1:1-65535").send(post(hooks.url))
        assert.strictEqual(sent.kind === "answered" ? sent.body.length : -1, NodeWebhookSender.answerBytes)
        hooks.answer = () => {}
        const slow = yield* sender("127.0.0.1:1-65535", Duration.millis(200)).send(post(hooks.url))
        assert.strictEqual(slow.kind, "timeout")
        assert.isAtLeast(slow.durationMs, 150)
      })
    )
  )
})

describe("the webhook sender's ports", () => {
  it.effect("a receiver on loopback is reached on a port the operator allows, and refused on another", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const allowed = yield* receiver()
        const other = yield* receiver()
        const allowedPort = new URL(allowed.url).port
        const otherUrl = other.url
        const hooks = sender(`127.0.0.1:${allowedPort}`)
        yield* hooks.check(allowed.url)
        assert.strictEqual((yield* hooks.send(post(allowed.url))).kind, "answered")
        const refused = yield* Effect.flip(hooks.check(otherUrl))
        assert.strictEqual(refused.message, `port ${new URL(otherUrl).port} of 127.0.0.1 is not open to webhooks`)
        assert.strictEqual((yield* hooks.send(post(otherUrl))).kind, "blocked")
        // By a name that resolves to it, the same: the port is judged at connect time too.
        names.set("loopback.test", ["127.0.0.1"])
        const byName = NodeWebhookSender.make({
          allowance: parseAllowance("127.0.0.0/8:1-65535, loopback.test:1-65535") as Allowance,
          own: [],
          resolve
        })
        assert.strictEqual((yield* byName.send(post(otherUrl.replace("127.0.0.1", "loopback.test")))).kind, "answered")
        assert.lengthOf(allowed.received, 1)
        assert.lengthOf(other.received, 1)
      })
    )
  )

  it.effect("the service's own API and database are refused even when listed, by address and by name", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // Stand-ins listening where the service's API and its database would.
        const api = yield* receiver()
        const database = yield* receiver()
        const receiving = yield* receiver()
        const port = (url: string) => Number(new URL(url).port)
        names.set("localhost", ["127.0.0.1", "::1"])
        names.set("inward.test", ["127.0.0.1"])
        const hooks = NodeWebhookSender.make({
          allowance: parseAllowance("127.0.0.1:1-65535, inward.test:1-65535, localhost:1-65535") as Allowance,
          own: [
            { host: "0.0.0.0", port: port(api.url) },
            { host: "localhost", port: port(database.url) }
          ],
          resolve
        })
        const at = (host: string, url: string) => `http://${host}:${port(url)}/hooks`
        for (const url of [
          at("127.0.0.1", api.url),
          at("127.0.0.1", database.url),
          at("inward.test", api.url),
          at("inward.test", database.url),
          at("localhost", database.url)
        ]) {
          const sent = yield* hooks.send(post(url))
          assert.strictEqual(sent.kind, "blocked", url)
          assert.match(sent.kind === "blocked" ? sent.message : "", /the service's own listener or its database/, url)
          assert.strictEqual((yield* Effect.flip(hooks.check(url)))._tag, "WebhookUrlRejected", url)
        }
        assert.lengthOf(api.received, 0)
        assert.lengthOf(database.received, 0)
        // Any other port of the same host is the operator's to open.
        assert.strictEqual((yield* hooks.send(post(receiving.url))).kind, "answered")
      })
    )
  )
})
