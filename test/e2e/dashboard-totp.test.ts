/**
 * The second factor over a real socket and database: turned on from the account page with a
 * code, then sign-in asks for a code before any session; a wrong code, a used-up sign-in and a
 * replayed code are refused; turned off with the password and a code; recovery codes shown once,
 * each signing in once in place of a code. Codes are computed by the
 * `otpauth` library for the current step (the server's clock), each one later than the last used.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as OTPAuth from "otpauth"
import { AccountsLive } from "../../app/Layers.ts"
import { stepMillis } from "../../core/accounts/services/SecondFactors.ts"
import { type Client, csrfOf, inviteToken, makeClient, password, run } from "../support/DashboardClient.ts"
import { insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const TestLayer = Layer.mergeAll(serverLayer({ dashboard: true }), AccountsLive).pipe(
  Layer.provideMerge(TestDatabase.layer)
)

/** The code of the current step, moved `offset` steps. */
const code = (secret: string, offset = 0) =>
  OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp: Date.now() + offset * stepMillis })

/** Six digits that are none of the codes within one step of now. */
const wrongCode = (secret: string) =>
  ["000000", "111111", "222222", "333333"].find((text) => ![-1, 0, 1].some((offset) => code(secret, offset) === text))!

const tokenOf = (body: string) => /name="token" value="([^"]+)"/.exec(body)?.[1] ?? ""

/** Signs in with the password: the answer is the page asking for a code, with no session. */
const passwordStep = (client: Client, email: string) =>
  Effect.map(
    run(() => client.post("/dashboard/sign-in", { email, password })),
    (answer) => {
      assert.strictEqual(answer.status, 200)
      assert.include(answer.body, "Enter your code")
      assert.isNull(answer.headers.get("set-cookie"), "no session before the code")
      return tokenOf(answer.body)
    }
  )

const codeStep = (client: Client, token: string, text: string) =>
  run(() => client.post("/dashboard/sign-in/code", { token, code: text }))

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard's second factor over HTTP", (it) => {
  it.effect("turned on with a code, asked for at sign-in, a code used once, turned off", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const sql = yield* SqlClient.SqlClient
      const fixture = yield* insertFixture
      const email = "totp-user@example.com"
      const client = makeClient(base)
      const invite = yield* inviteToken(fixture.orgA, email, "member")
      assert.strictEqual((yield* run(() => client.accept(invite))).status, 303)

      const account = yield* run(() => client.get("/dashboard/account"))
      assert.strictEqual(account.status, 200)
      assert.include(account.body, 'href="/dashboard/account"')
      const secret = /<code class="secret">([A-Z2-7]{32})<\/code>/.exec(account.body)?.[1] ?? ""
      assert.match(account.body, /<a class="secret" href="otpauth:\/\/totp\/[^"]+">otpauth:\/\/totp\//, "a link")
      const enable = (text: string, withPassword = password) =>
        run(() =>
          client.post("/dashboard/account/totp/enable", {
            csrf: csrfOf(account.body),
            password: withPassword,
            code: text
          })
        )
      assert.strictEqual((yield* enable(wrongCode(secret))).status, 400)
      assert.strictEqual((yield* enable(code(secret), "not the password")).status, 400, "a session alone cannot")
      // Taken once: a step boundary may pass before it is tried again below.
      const enablingCode = code(secret, -1)
      assert.strictEqual((yield* enable(enablingCode)).status, 303, "on to the recovery codes")
      const enabled = yield* run(() => client.get("/dashboard/account/recovery-codes"))
      assert.strictEqual(enabled.status, 200)
      assert.include(enabled.body, "Your recovery codes")
      assert.notInclude(enabled.body, secret, "the secret is shown on the enabling page alone")
      assert.strictEqual(
        (yield* run(() => client.post("/dashboard/sign-out", { csrf: csrfOf(enabled.body) }))).status,
        303
      )

      // A wrong code asks for the code again, focused, under a new token: the e-mail address and
      // password are not typed again. The token the wrong code came with is used up, even with the
      // right code; the new one signs in.
      const retrier = makeClient(base)
      const held = yield* passwordStep(retrier, email)
      const again = yield* codeStep(retrier, held, wrongCode(secret))
      assert.strictEqual(again.status, 401)
      assert.include(again.body, "Enter your code")
      assert.include(again.body, "That code is wrong or was used already")
      assert.match(again.body, /<input id="code"[^>]* autofocus/)
      const heldAgain = tokenOf(again.body)
      assert.notStrictEqual(heldAgain, "")
      assert.notStrictEqual(heldAgain, held)
      // A recovery code, so that the app's codes of these 90 seconds stay unused for what follows.
      const recoveryCode = /\b[a-z0-9]{5}-[a-z0-9]{5}\b/.exec(enabled.body)?.[0] ?? ""
      assert.strictEqual((yield* codeStep(retrier, held, recoveryCode)).status, 401)
      const afterWrong = yield* codeStep(retrier, heldAgain, recoveryCode)
      assert.strictEqual(afterWrong.status, 303)
      assert.match(afterWrong.headers.get("location") ?? "", /^\/dashboard\/account\?/)
      // The enabling code is used up too.
      assert.strictEqual((yield* codeStep(client, yield* passwordStep(client, email), enablingCode)).status, 401)

      const current = code(secret)
      const signedIn = yield* codeStep(client, yield* passwordStep(client, email), current)
      assert.strictEqual(signedIn.status, 303)
      assert.match(signedIn.headers.get("set-cookie") ?? "", /^pr_session=/)
      const page = yield* run(() => client.get("/dashboard/account"))
      assert.include(page.body, "Second factor: <strong>on</strong>")

      // While the factor is locked no code is accepted, and the page says for how long and what to do.
      yield* sql`
        UPDATE dashboard_users SET totp_locked_until = now() + interval '15 minutes' WHERE email = ${email}`
      const locked = yield* codeStep(makeClient(base), yield* passwordStep(makeClient(base), email), code(secret, 1))
      assert.strictEqual(locked.status, 429)
      assert.include(locked.body, "ask an operator for a new invite")
      yield* sql`UPDATE dashboard_users SET totp_locked_until = NULL WHERE email = ${email}`

      const replayer = makeClient(base)
      assert.strictEqual((yield* codeStep(replayer, yield* passwordStep(replayer, email), current)).status, 401)
      assert.isUndefined(replayer.cookie)

      const disable = (fields: { password: string; code: string }) =>
        run(() => client.post("/dashboard/account/totp/disable", { csrf: csrfOf(page.body), ...fields }))
      assert.strictEqual((yield* disable({ password: "not the password", code: code(secret, 1) })).status, 400)
      const disabled = yield* disable({ password, code: code(secret, 1) })
      assert.strictEqual(disabled.status, 200)
      assert.include(disabled.body, "The second factor is off.")
      const plain = yield* run(() => makeClient(base).post("/dashboard/sign-in", { email, password }))
      assert.strictEqual(plain.status, 303)

      const actions = yield* sql<{ action: string }>`
        SELECT a.action FROM dashboard_audit a JOIN dashboard_users u ON u.id = a.user_id
        WHERE u.email = ${email} ORDER BY a.id`
      assert.deepStrictEqual(
        actions.map((row) => row.action),
        [
          "invite_accepted",
          "totp_enabled",
          "recovery_codes_generated",
          "sign_out",
          "sign_in_failed",
          "recovery_code_used",
          "sign_in",
          "sign_in_failed",
          "sign_in",
          "sign_in_failed",
          "sign_in_failed",
          "totp_disabled",
          "sign_in"
        ]
      )
      const leaks = yield* sql<{ count: string }>`
        SELECT (SELECT count(*) FROM dashboard_audit a WHERE a::text LIKE ${`%${secret}%`})
          + (SELECT count(*) FROM audit_log l WHERE l::text LIKE ${`%${secret}%`}) AS count`
      assert.strictEqual(Number(leaks[0]?.count), 0, "the secret is in no audit log")
    })
  )
  it.effect("the server keeps the secret: the form carries none, a posted one is ignored, a wrong code keeps it", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const sql = yield* SqlClient.SqlClient
      const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Chosen') RETURNING id`
      const email = "chosen-secret@example.com"
      const client = makeClient(base)
      const invite = yield* inviteToken(org!.id, email, "member")
      assert.strictEqual((yield* run(() => client.accept(invite))).status, 303)
      const account = yield* run(() => client.get("/dashboard/account"))
      assert.notInclude(account.body, 'name="secret"', "the browser is not handed the secret to send back")
      const secret = /<code class="secret">([A-Z2-7]{32})<\/code>/.exec(account.body)?.[1] ?? ""
      const qr = /<img src="data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)"[^>]*alt="QR code/.exec(account.body)?.[1]
      assert.include(Buffer.from(qr ?? "", "base64").toString("utf8"), "<svg", "a QR code drawn by the server")

      // A secret of the page's choosing (all A) with its own code: what the old form accepted.
      const chosen = "A".repeat(32)
      const forged = yield* run(() =>
        client.post("/dashboard/account/totp/enable", {
          csrf: csrfOf(account.body),
          password,
          secret: chosen,
          code: code(chosen)
        })
      )
      assert.strictEqual(forged.status, 400)
      const [row] = yield* sql<{
        totp_secret: string | null
      }>`SELECT totp_secret FROM dashboard_users WHERE email = ${email}`
      assert.isNull(row!.totp_secret, "no factor with a chosen secret")
      assert.include(forged.body, `<code class="secret">${secret}</code>`, "after a wrong code, the same secret")
      assert.include((yield* run(() => client.get("/dashboard/account"))).body, secret, "and on reload")

      const enabled = yield* run(() =>
        client.post("/dashboard/account/totp/enable", { csrf: csrfOf(account.body), password, code: code(secret, -1) })
      )
      assert.strictEqual(enabled.status, 303)
      const [on] = yield* sql<{ totp_secret: string | null; totp_pending_secret: string | null }>`
        SELECT totp_secret, totp_pending_secret FROM dashboard_users WHERE email = ${email}`
      assert.deepStrictEqual(on, { totp_secret: secret, totp_pending_secret: null })
    })
  )
  it.effect("someone who has the password signing in again does not cancel the owner's waiting sign-in", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const sql = yield* SqlClient.SqlClient
      const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Held') RETURNING id`
      const email = "held-owner@example.com"
      const owner = makeClient(base)
      const invite = yield* inviteToken(org!.id, email, "member")
      yield* run(() => owner.accept(invite))
      const account = yield* run(() => owner.get("/dashboard/account"))
      const secret = /<code class="secret">([A-Z2-7]{32})<\/code>/.exec(account.body)?.[1] ?? ""
      yield* run(() =>
        owner.post("/dashboard/account/totp/enable", { csrf: csrfOf(account.body), password, code: code(secret, -1) })
      )
      const ownersHold = yield* passwordStep(makeClient(base), email)
      // The attacker signs in with the stolen password, again and again, from elsewhere.
      for (let i = 0; i < 3; i++) yield* passwordStep(makeClient(base), email)
      const completed = yield* codeStep(makeClient(base), ownersHold, code(secret))
      assert.strictEqual(completed.status, 303, "the owner's sign-in still completes")
    })
  )

  it.effect("regression: a user who lost the authenticator signs in with a recovery code, which works once", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const sql = yield* SqlClient.SqlClient
      const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Lost app') RETURNING id`
      const email = "lost-app@example.com"
      const owner = makeClient(base)
      const invite = yield* inviteToken(org!.id, email, "member")
      yield* run(() => owner.accept(invite))
      const account = yield* run(() => owner.get("/dashboard/account"))
      const secret = /<code class="secret">([A-Z2-7]{32})<\/code>/.exec(account.body)?.[1] ?? ""
      const enabled = yield* run(() =>
        owner.post("/dashboard/account/totp/enable", { csrf: csrfOf(account.body), password, code: code(secret, -1) })
      )
      assert.strictEqual(enabled.headers.get("location"), "/dashboard/account/recovery-codes")
      const carrying = owner.cookie
      const shown = yield* run(() => owner.get("/dashboard/account/recovery-codes"))
      assert.strictEqual(shown.status, 200)
      const codes = /<textarea[^>]*>([^<]*)<\/textarea>/.exec(shown.body)?.[1]?.split("\n") ?? []
      assert.strictEqual(codes.length, 10)
      // The codes stayed on the server: the cookie that led to them holds none, in any spelling,
      // and sent again (copied from the browser) it shows nothing.
      const cookies = enabled.headers.getSetCookie().join("\n").toLowerCase()
      for (const each of codes) {
        assert.notInclude(cookies, each)
        assert.notInclude(cookies, each.replace("-", ""))
      }
      const signedInCookie = owner.cookie
      owner.cookie = carrying
      const copied = yield* run(() => owner.get("/dashboard/account/recovery-codes"))
      assert.strictEqual(copied.status, 303, "a copied cookie shows the codes no more")
      owner.cookie = signedInCookie
      for (const each of codes) assert.match(each, /^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/)
      const file = /href="data:text\/plain;charset=utf-8,([^"]+)" download="[^"]+\.txt"/.exec(shown.body)?.[1] ?? ""
      assert.include(decodeURIComponent(file), codes.join("\n"), "the download holds the codes")
      // Shown once: a reload leads to the account page, which says so.
      const reload = yield* run(() => owner.get("/dashboard/account/recovery-codes"))
      assert.strictEqual(reload.status, 303)
      assert.strictEqual(reload.headers.get("location"), "/dashboard/account?recovery-codes-shown")
      const stored = yield* sql<{ count: string }>`
        SELECT count(*) AS count FROM dashboard_recovery_codes c JOIN dashboard_users u ON u.id = c.user_id
        WHERE u.email = ${email}`
      assert.strictEqual(Number(stored[0]?.count), 10)

      // The authenticator is lost: a recovery code signs in, from the form the code page offers.
      const stranger = makeClient(base)
      const held = yield* passwordStep(stranger, email)
      const asked = yield* run(() => stranger.post("/dashboard/sign-in", { email, password }))
      assert.include(asked.body, "Use a recovery code")
      const signedIn = yield* codeStep(stranger, held, codes[0]!)
      assert.strictEqual(signedIn.status, 303)
      assert.strictEqual(signedIn.headers.get("location"), "/dashboard/account?recovery-code-used")
      const told = yield* run(() => stranger.get("/dashboard/account?recovery-code-used"))
      assert.include(told.body, "You signed in with a recovery code; 9 recovery codes left.")

      // Used once: the same code is refused, and no session is made.
      const replayer = makeClient(base)
      const refused = yield* codeStep(replayer, yield* passwordStep(replayer, email), codes[0]!)
      assert.strictEqual(refused.status, 401)
      assert.isUndefined(replayer.cookie)

      // Down to three, the account page warns.
      for (const each of codes.slice(1, 7)) {
        const client = makeClient(base)
        assert.strictEqual((yield* codeStep(client, yield* passwordStep(client, email), each)).status, 303)
      }
      const warned = yield* run(() => stranger.get("/dashboard/account"))
      assert.match(warned.body, /<p role="alert"><strong>3 recovery codes left\.<\/strong>/)

      // A new set, with the password, voids the old one.
      const remade = yield* run(() =>
        stranger.post("/dashboard/account/recovery-codes", { csrf: csrfOf(warned.body), password })
      )
      assert.strictEqual(remade.status, 303)
      const fresh = yield* run(() => stranger.get("/dashboard/account/recovery-codes"))
      const freshCodes = /<textarea[^>]*>([^<]*)<\/textarea>/.exec(fresh.body)?.[1]?.split("\n") ?? []
      assert.strictEqual(freshCodes.length, 10)
      const old = makeClient(base)
      assert.strictEqual((yield* codeStep(old, yield* passwordStep(old, email), codes[8]!)).status, 401)

      const actions = yield* sql<{ action: string }>`
        SELECT a.action FROM dashboard_audit a JOIN dashboard_users u ON u.id = a.user_id
        WHERE u.email = ${email} AND a.action LIKE 'recovery%' ORDER BY a.id`
      assert.deepStrictEqual(
        actions.map((row) => row.action),
        ["recovery_codes_generated", ...Array(7).fill("recovery_code_used"), "recovery_codes_generated"]
      )
      const leaks = yield* sql<{ count: string }>`
        SELECT (SELECT count(*) FROM dashboard_audit a WHERE a::text LIKE ${`%${codes[0]!}%`})
          + (SELECT count(*) FROM audit_log l WHERE l::text LIKE ${`%${codes[0]!}%`}) AS count`
      assert.strictEqual(Number(leaks[0]?.count), 0, "no code is in an audit log")

      // Turning the factor off deletes the codes.
      const page = yield* run(() => stranger.get("/dashboard/account"))
      const off = yield* run(() =>
        stranger.post("/dashboard/account/totp/disable", { csrf: csrfOf(page.body), password, code: freshCodes[0]! })
      )
      assert.strictEqual(off.status, 200)
      assert.include(off.body, "The second factor is off.")
      const left = yield* sql<{ count: string }>`
        SELECT count(*) AS count FROM dashboard_recovery_codes c JOIN dashboard_users u ON u.id = c.user_id
        WHERE u.email = ${email}`
      assert.strictEqual(Number(left[0]?.count), 0)
    })
  )
})
