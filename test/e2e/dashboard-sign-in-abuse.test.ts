/**
 * Sign-in under abuse, over a real socket and database, with real scrypt: past the hashes in
 * flight and the queue's room a sign-in is refused at once (503, `Retry-After`) and audited; a run of wrong codes from
 * several addresses locks the second factor for a while only (429, `Retry-After`), and the
 * owner's next sign-in leads to the account page, which says when and from where the latest wrong
 * code came. Client addresses come from
 * `X-Forwarded-For`, the loopback being a trusted proxy.
 */
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as OTPAuth from "otpauth"
import { AccountsLive } from "../../app/Layers.ts"
import { maxWrongCodes, stepMillis, wrongCodeSubject } from "../../core/accounts/services/SecondFactors.ts"
import { csrfOf, inviteToken, makeClient, password, run } from "../support/DashboardClient.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const TestLayer = Layer.mergeAll(
  serverLayer({ dashboard: true, trustedProxies: ["127.0.0.1"], settings: { PASSWORD_HASHES_IN_FLIGHT: "1" } }),
  AccountsLive
).pipe(Layer.provideMerge(TestDatabase.layer))

const from = (address: string) => ({ "x-forwarded-for": address })

const code = (secret: string, offset = 0) =>
  OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp: Date.now() + offset * stepMillis })

const wrongCode = (secret: string) =>
  ["000000", "111111", "222222", "333333"].find((text) => ![-1, 0, 1].some((offset) => code(secret, offset) === text))!

const tokenOf = (body: string) => /name="token" value="([^"]+)"/.exec(body)?.[1] ?? ""

/** A user of a new organization, signed in through the invite, the client holding the session. */
const onboarded = (email: string) =>
  Effect.gen(function* () {
    const base = yield* BaseUrl
    const sql = yield* SqlClient.SqlClient
    const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Org') RETURNING id`
    const client = makeClient(base)
    const token = yield* inviteToken(org!.id, email, "member")
    const accepted = yield* run(() => client.accept(token))
    assert.strictEqual(accepted.status, 303)
    return client
  })

const signIn = (email: string, address: string, withPassword = password) =>
  Effect.flatMap(BaseUrl, (base) =>
    run(() => makeClient(base).post("/dashboard/sign-in", { email, password: withPassword }, base, from(address)))
  )

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("sign-in under abuse over HTTP", (it) => {
  it.effect(
    "past the hash in flight and the account's place in line, a sign-in is answered at once with 503 and Retry-After, and audited",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // Waits for the decoy hash the service makes at start, which holds the one place meanwhile.
        assert.strictEqual((yield* signIn("nobody@example.com", "192.0.2.99")).status, 401)
        const email = "storm@example.com"
        yield* onboarded(email)
        const answers = yield* Effect.all(
          Array.from({ length: 16 }, (_, i) => signIn(email, `198.51.100.${i + 1}`, "a wrong password!")),
          { concurrency: "unbounded" }
        )
        const busy = answers.filter((answer) => answer.status === 503)
        // Sixteen on one account arrive within a few hashes' time of each other: one place and the
        // account's four places in line cannot hold them all.
        assert.isAtLeast(busy.length, 1)
        assert.isTrue(answers.every((answer) => answer.status === 401 || answer.status === 503))
        for (const answer of busy) {
          assert.strictEqual(answer.headers.get("retry-after"), "1")
          assert.include(answer.body, "Too many sign-ins right now")
        }
        const audited = yield* sql<{ count: string }>`
        SELECT count(*) AS count FROM audit_log WHERE path = '/dashboard/sign-in' AND status = 503`
        assert.strictEqual(Number(audited[0]?.count), busy.length)
      })
  )

  it.effect("wrong codes from five addresses lock the second factor for a while; the owner is told afterwards", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const sql = yield* SqlClient.SqlClient
      const email = "guessed@example.com"
      const owner = yield* onboarded(email)
      const account = yield* run(() => owner.get("/dashboard/account"))
      const secret = /<code class="secret">([A-Z2-7]{32})<\/code>/.exec(account.body)?.[1] ?? ""
      const enabled = yield* run(() =>
        owner.post("/dashboard/account/totp/enable", {
          csrf: csrfOf(account.body),
          password,
          code: code(secret, -1)
        })
      )
      assert.strictEqual(enabled.status, 303)

      const codeStep = (address: string, text: string) =>
        Effect.gen(function* () {
          const client = makeClient(base)
          const held = yield* run(() => client.post("/dashboard/sign-in", { email, password }, base, from(address)))
          assert.include(held.body, "Enter your code")
          const answer = yield* run(() =>
            client.post("/dashboard/sign-in/code", { token: tokenOf(held.body), code: text }, base, from(address))
          )
          return { client, answer }
        })
      const attackers = ["203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4", "203.0.113.5"]
      for (let i = 0; i < maxWrongCodes; i++) {
        const { answer } = yield* codeStep(attackers[i % attackers.length]!, wrongCode(secret))
        assert.strictEqual(answer.status, 401)
      }
      const locked = (yield* codeStep("198.51.100.20", code(secret))).answer
      assert.strictEqual(locked.status, 429)
      assert.closeTo(Number(locked.headers.get("retry-after")), 15 * 60, 5)
      assert.include(locked.body, "accepts no code for 15 minutes")

      // The lock ends by itself: here, as if its quarter of an hour had passed.
      yield* sql`
        UPDATE dashboard_users SET totp_locked_until = now() - interval '1 second' WHERE email = ${email}`
      const { client, answer } = yield* codeStep("198.51.100.20", code(secret, 1))
      assert.strictEqual(answer.status, 303)
      assert.strictEqual(answer.headers.get("location"), "/dashboard/account")
      const told = yield* run(() => client.get("/dashboard/account"))
      assert.include(told.body, "A wrong code was entered after your right password")
      assert.include(told.body, attackers[(maxWrongCodes - 1) % attackers.length]!)
      assert.match(told.body, /<time datetime="\d{4}-\d{2}-\d{2}T/)

      const failures = yield* sql<{ client_address: string }>`
        SELECT a.client_address FROM dashboard_audit a JOIN dashboard_users u ON u.id = a.user_id
        WHERE u.email = ${email} AND a.action = 'sign_in_failed' AND a.subject = ${wrongCodeSubject}`
      assert.strictEqual(failures.length, maxWrongCodes)
      assert.sameMembers([...new Set(failures.map((row) => row.client_address))], attackers)
    })
  )

  it.effect(
    "while a flood from 40 addresses keeps the hash busy, the owner from a known address gets in every time",
    () =>
      Effect.gen(function* () {
        const email = "flooded@example.com"
        const home = "198.51.100.77"
        yield* onboarded(email)
        assert.strictEqual((yield* signIn(email, home)).status, 303)

        let flooding = true
        const saturated = yield* Deferred.make<void>()
        // Each address signs in again as soon as it is answered, on made-up accounts, until the owner
        // is done or its allowance is spent (60 attempts).
        const flood = yield* Effect.forkChild(
          Effect.forEach(
            Array.from({ length: 40 }, (_, i) => `203.0.113.${i + 1}`),
            (from, i) =>
              Effect.gen(function* () {
                for (let n = 0; n < 60 && flooding; n++) {
                  const answer = yield* signIn(`made-up-${i}-${n}@example.com`, from, "a wrong password!")
                  if (answer.status === 503) yield* Deferred.succeed(saturated, undefined)
                }
              }),
            { concurrency: "unbounded", discard: true }
          )
        )
        // The owner starts once the flood has been refused for want of a place.
        yield* Deferred.await(saturated)
        const answers: Array<number> = []
        for (let i = 0; i < 5; i++) answers.push((yield* signIn(email, home)).status)
        flooding = false
        yield* Fiber.join(flood)
        assert.deepStrictEqual(answers, [303, 303, 303, 303, 303])
      })
  )
})
