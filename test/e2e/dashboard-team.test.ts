/**
 * The team over a real socket: an admin invites (the link shown once, after a redirect),
 * changes a role and removes a user, each holding from the user's next request on (their
 * sessions end); inviting someone again signs them out at once and voids their older links; an
 * organization keeps one admin; members are refused the team pages (403).
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../app/Layers.ts"
import {
  type Client,
  csrfOf,
  email,
  inviteToken,
  makeClient,
  password,
  run,
  signedIn
} from "../support/DashboardClient.ts"
import { type Fixture, insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

class TestFixture extends Context.Service<TestFixture, Fixture>()("test/DashboardTeamFixture") {}

const TestLayer = Layer.mergeAll(
  serverLayer({ dashboard: true }),
  AccountsLive,
  Layer.effect(TestFixture, insertFixture)
).pipe(Layer.provideMerge(TestDatabase.layer))

const setup = Effect.all({ fixture: Effect.service(TestFixture), base: Effect.service(BaseUrl) })

/** A fresh organization, so that its admins are the test's own. */
const newOrg = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Team org') RETURNING id`
  return row!.id
})

const userId = (address: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    Effect.map(sql<{ id: string }>`SELECT id FROM dashboard_users WHERE email = ${address}`, ([row]) => row!.id)
  )

const createsKey = (client: Client, csrf: string) =>
  Effect.map(
    run(() => client.post("/dashboard/keys", { csrf, name: "by-someone" })),
    (answer) => answer.status
  )

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard's team", (it) => {
  it.effect("an admin invites someone: the link is shown once after a redirect, and works", () =>
    Effect.gen(function* () {
      const { base } = yield* setup
      const org = yield* newOrg
      const { client, csrf } = yield* signedIn(base, org, "admin")
      const address = email("invitee")
      const posted = yield* run(() => client.post("/dashboard/team/invite", { csrf, email: address, role: "member" }))
      assert.strictEqual(posted.status, 303)
      assert.strictEqual(posted.headers.get("location"), "/dashboard/team/invited")
      const shown = yield* run(() => client.get("/dashboard/team/invited"))
      const link = /id="invite-link"[^>]*value="([^"]+)"/.exec(shown.body)?.[1] ?? ""
      assert.match(link, new RegExp(`^${base}/dashboard/invite/[A-Za-z0-9_-]{43}$`))
      const again = yield* run(() => client.get("/dashboard/team/invited"))
      assert.strictEqual(again.status, 303, "shown once")
      const invitee = makeClient(base)
      assert.strictEqual((yield* run(() => invitee.accept(link.split("/").at(-1)!))).status, 303)
      const page = yield* run(() => client.get("/dashboard/team"))
      assert.include(page.body, address)
    })
  )

  it.effect(
    "regression: pending invites are listed and an admin revokes one (its link stops working, the log says so)",
    () =>
      Effect.gen(function* () {
        const { base } = yield* setup
        const org = yield* newOrg
        const { client, csrf } = yield* signedIn(base, org, "admin")
        const member = yield* signedIn(base, org, "member")
        const address = email("pending")
        const token = yield* inviteToken(org, address, "admin")
        const page = yield* run(() => client.get("/dashboard/team"))
        const pending = page.body.slice(
          page.body.indexOf('id="pending-heading"'),
          page.body.indexOf('id="invite-heading"')
        )
        assert.include(pending, `<th scope="row">${address}</th><td data-label="Role">admin</td>`)
        assert.include(pending, "<time", "when it was made and when it expires")
        assert.notInclude(pending, "member-", "redeemed invites are not pending")
        assert.strictEqual(
          (yield* run(() =>
            member.client.post("/dashboard/team/invites/revoke", { csrf: member.csrf, email: address })
          )).status,
          403
        )
        const revoked = yield* run(() => client.post("/dashboard/team/invites/revoke", { csrf, email: address }))
        assert.strictEqual(revoked.status, 303)
        assert.strictEqual(revoked.headers.get("location"), "/dashboard/team?invite_revoked")
        const after = yield* run(() => client.get("/dashboard/team?invite_revoked"))
        assert.include(after.body, "The invite is revoked: its link no longer works.")
        assert.include(after.body, "No invite is waiting to be used.")
        assert.notStrictEqual((yield* run(() => makeClient(base).accept(token))).status, 303, "the link is void")
        const again = yield* run(() => client.post("/dashboard/team/invites/revoke", { csrf, email: address }))
        assert.strictEqual(again.status, 404)
        assert.include(again.body, "Not revoked: no invite of that address is waiting")
        const sql = yield* SqlClient.SqlClient
        const logged = yield* sql<{ subject: string; user_id: string }>`
        SELECT subject, user_id FROM dashboard_audit WHERE org_id = ${org} AND action = 'invite_revoked'`
        assert.strictEqual(logged.length, 1)
        assert.strictEqual(logged[0]!.subject, address)
        assert.strictEqual(logged[0]!.user_id, yield* userId(/admin-\d+@example\.com/.exec(page.body)![0]))
      })
  )

  it.effect("regression: each pending invite names the admin who sent it, and an operator's none", () =>
    Effect.gen(function* () {
      const { base } = yield* setup
      const org = yield* newOrg
      const { client, csrf } = yield* signedIn(base, org, "admin")
      const overview = yield* run(() => client.get("/dashboard/team"))
      const sender = /admin-\d+@example\.com/.exec(overview.body)![0]
      const fromAdmin = email("sent")
      const fromOperator = email("operator")
      const posted = yield* run(() => client.post("/dashboard/team/invite", { csrf, email: fromAdmin, role: "member" }))
      assert.strictEqual(posted.status, 303)
      yield* inviteToken(org, fromOperator, "member")
      const page = yield* run(() => client.get("/dashboard/team"))
      const pending = page.body.slice(
        page.body.indexOf('id="pending-heading"'),
        page.body.indexOf('id="invite-heading"')
      )
      assert.include(pending, '<th scope="col">Sent by</th>')
      assert.include(
        pending,
        `<th scope="row">${fromAdmin}</th><td data-label="Role">member</td><td data-label="Sent by">${sender}</td>`
      )
      assert.include(
        pending,
        `<th scope="row">${fromOperator}</th><td data-label="Role">member</td><td data-label="Sent by">—</td>`
      )
    })
  )

  it.effect("regression: each user's second factor is shown on or off", () =>
    Effect.gen(function* () {
      const { base } = yield* setup
      const org = yield* newOrg
      const { client } = yield* signedIn(base, org, "admin")
      yield* signedIn(base, org, "member")
      const sql = yield* SqlClient.SqlClient
      yield* sql`
        UPDATE dashboard_users SET totp_secret = ${"A".repeat(32)}, totp_last_step = 0
        WHERE org_id = ${org} AND role = 'member'`
      const page = yield* run(() => client.get("/dashboard/team"))
      assert.include(page.body, '<th scope="col">Second factor</th>')
      assert.match(page.body, /member-\d+@example\.com<\/th><td[^>]*>member<\/td><td[^>]*>on<\/td>/)
      assert.match(page.body, /admin-\d+@example\.com \(you\)<\/th><td[^>]*>admin<\/td><td[^>]*>off<\/td>/)
    })
  )

  it.effect("a demoted admin's sessions end at once; signed in again, they cannot create keys", () =>
    Effect.gen(function* () {
      const { base } = yield* setup
      const org = yield* newOrg
      const { client, csrf } = yield* signedIn(base, org, "admin")
      const other = yield* signedIn(base, org, "admin")
      const sql = yield* SqlClient.SqlClient
      const [target] = yield* sql<{ id: string; email: string }>`
        SELECT id, email FROM dashboard_users WHERE org_id = ${org} ORDER BY created_at DESC LIMIT 1`
      const changed = yield* run(() => client.post(`/dashboard/team/${target!.id}/role`, { csrf, role: "member" }))
      assert.strictEqual(changed.status, 303)
      assert.strictEqual(
        (yield* run(() => other.client.post("/dashboard/keys", { csrf: other.csrf, name: "by-someone" }))).headers.get(
          "location"
        ),
        "/dashboard/sign-in?ended=role_changed",
        "the session ended, and the redirect says why"
      )
      const told = yield* run(() => other.client.get("/dashboard/sign-in?ended=role_changed"))
      assert.include(told.body, "You were signed out: an admin changed your role.")
      assert.strictEqual(
        (yield* run(() => other.client.get("/dashboard/keys"))).headers.get("location"),
        "/dashboard/sign-in",
        "the cookie is gone: nothing more is told"
      )
      const again = makeClient(base)
      yield* run(() => again.post("/dashboard/sign-in", { email: target!.email, password }))
      const againCsrf = csrfOf((yield* run(() => again.get("/dashboard/keys"))).body)
      assert.strictEqual(yield* createsKey(again, againCsrf), 403)
      const [count] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM api_keys WHERE org_id = ${org} AND name = 'by-someone'`
      assert.strictEqual(count!.n, 0)
      const [entry] = yield* sql<{ action: string; subject: string }>`
        SELECT action, subject FROM dashboard_audit WHERE org_id = ${org} AND action = 'role_changed'`
      assert.strictEqual(entry?.subject, target!.id)
    })
  )

  it.effect("a re-invited admin is signed out at once, and their older link stops working", () =>
    Effect.gen(function* () {
      const { base } = yield* setup
      const org = yield* newOrg
      yield* signedIn(base, org, "admin")
      const address = email("reinvited")
      const first = makeClient(base)
      const token = yield* inviteToken(org, address, "admin")
      assert.strictEqual((yield* run(() => first.accept(token))).status, 303)
      const csrf = csrfOf((yield* run(() => first.get("/dashboard/keys"))).body)

      const olderAdminLink = yield* inviteToken(org, address, "admin")
      yield* inviteToken(org, address, "member")
      assert.strictEqual(
        (yield* run(() => first.post("/dashboard/keys", { csrf, name: "by-someone" }))).headers.get("location"),
        "/dashboard/sign-in?ended=reinvited",
        "the re-invite signed them out"
      )
      const older = makeClient(base)
      assert.strictEqual((yield* run(() => older.get(`/dashboard/invite/${olderAdminLink}`))).status, 410)
      assert.notStrictEqual((yield* run(() => older.accept(olderAdminLink))).status, 303)
      const [row] = yield* (yield* SqlClient.SqlClient)<{ role: string }>`
        SELECT role FROM dashboard_users WHERE email = ${address}`
      assert.strictEqual(row!.role, "admin", "the older link changed nothing")
    })
  )

  it.effect("a removed user is signed out and cannot sign in; an invite lets them in again", () =>
    Effect.gen(function* () {
      const { base } = yield* setup
      const org = yield* newOrg
      const { client, csrf } = yield* signedIn(base, org, "admin")
      const member = yield* signedIn(base, org, "member")
      const sql = yield* SqlClient.SqlClient
      const [target] = yield* sql<{ id: string; email: string }>`
        SELECT id, email FROM dashboard_users WHERE org_id = ${org} AND role = 'member'`
      const confirm = yield* run(() => client.get(`/dashboard/team/${target!.id}/remove`))
      assert.include(confirm.body, `Remove ${target!.email}?`)
      const removed = yield* run(() => client.post(`/dashboard/team/${target!.id}/remove`, { csrf }))
      assert.strictEqual(removed.status, 303)
      assert.strictEqual(
        (yield* run(() => member.client.get("/dashboard/keys"))).headers.get("location"),
        "/dashboard/sign-in?ended=removed"
      )
      assert.include(
        (yield* run(() => makeClient(base).get("/dashboard/sign-in?ended=removed"))).body,
        "an admin removed you from the organization"
      )
      const stranger = makeClient(base)
      stranger.cookie = `pr_session=${"x".repeat(43)}`
      assert.strictEqual(
        (yield* run(() => stranger.get("/dashboard/keys"))).headers.get("location"),
        "/dashboard/sign-in",
        "a token that was never a session is told nothing"
      )
      const signIn = yield* run(() => makeClient(base).post("/dashboard/sign-in", { email: target!.email, password }))
      assert.strictEqual(signIn.status, 401)
      const page = (yield* run(() => client.get("/dashboard/team?removed"))).body
      assert.include(page, "The user is removed")
      assert.match(page, new RegExp(`${target!.email}</th><td[^>]*>member</td><td[^>]*>.*?</td><td[^>]*>removed`))
      const back = yield* inviteToken(org, target!.email, "member")
      assert.strictEqual((yield* run(() => makeClient(base).accept(back))).status, 303)
      assert.strictEqual(yield* userId(target!.email), target!.id, "the same user, back")
    })
  )

  it.effect("the last admin can be neither demoted nor removed; members are refused the team pages", () =>
    Effect.gen(function* () {
      const { base } = yield* setup
      const org = yield* newOrg
      const { client, csrf } = yield* signedIn(base, org, "admin")
      const member = yield* signedIn(base, org, "member")
      const sql = yield* SqlClient.SqlClient
      const [admin] = yield* sql<{
        id: string
      }>`SELECT id FROM dashboard_users WHERE org_id = ${org} AND role = 'admin'`
      assert.strictEqual(
        (yield* run(() => client.post(`/dashboard/team/${admin!.id}/role`, { csrf, role: "member" }))).status,
        409
      )
      assert.strictEqual((yield* run(() => client.post(`/dashboard/team/${admin!.id}/remove`, { csrf }))).status, 409)
      for (const path of ["/dashboard/team", `/dashboard/team/${admin!.id}/remove`]) {
        assert.strictEqual((yield* run(() => member.client.get(path))).status, 403, path)
      }
      const attempts = [
        member.client.post(`/dashboard/team/${admin!.id}/role`, { csrf: member.csrf, role: "member" }),
        member.client.post(`/dashboard/team/${admin!.id}/remove`, { csrf: member.csrf }),
        member.client.post("/dashboard/team/invite", { csrf: member.csrf, email: email("x"), role: "admin" })
      ]
      for (const attempt of attempts) assert.strictEqual((yield* run(() => attempt)).status, 403)
      assert.notInclude((yield* run(() => member.client.get("/dashboard/keys"))).body, 'href="/dashboard/team"')
      const [still] = yield* sql<{ role: string }>`SELECT role FROM dashboard_users WHERE id = ${admin!.id}`
      assert.strictEqual(still!.role, "admin")
    })
  )

  it.effect("two admins demoting or removing each other at the same moment leave the organization one admin", () =>
    Effect.gen(function* () {
      const { base } = yield* setup
      const sql = yield* SqlClient.SqlClient
      for (let round = 0; round < 6; round++) {
        const org = yield* newOrg
        const first = yield* signedIn(base, org, "admin")
        const second = yield* signedIn(base, org, "admin")
        const [a, b] = yield* sql<{ id: string }>`
          SELECT id FROM dashboard_users WHERE org_id = ${org} ORDER BY created_at, id`
        const act = (who: typeof first, target: string) =>
          round % 2 === 0
            ? who.client.post(`/dashboard/team/${target}/role`, { csrf: who.csrf, role: "member" })
            : who.client.post(`/dashboard/team/${target}/remove`, { csrf: who.csrf })
        const answers = yield* run(() => Promise.all([act(first, b!.id), act(second, a!.id)]))
        const admins = yield* sql<{ id: string }>`
          SELECT id FROM dashboard_users WHERE org_id = ${org} AND role = 'admin' AND removed_at IS NULL`
        // One of the two is refused (409), or finds its session ended by the other's change (a
        // redirect to sign in); either way one admin is left.
        assert.lengthOf(admins, 1, `round ${round}: answered ${answers.map((answer) => answer.status)}`)
      }
    })
  )
})
