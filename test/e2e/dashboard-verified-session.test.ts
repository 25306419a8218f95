/**
 * The per-address allowance runs before any session is looked up, so it consults the sessions
 * the dashboard verified a moment ago: a signed-in user behind an address that keyless traffic
 * has exhausted is still served, counted by their session; a cookie never verified is refused
 * without a lookup; a signed-out one is found out once, forgotten, then refused. Each server keeps
 * its own: a session another server of the process verified vouches nothing here.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../app/Layers.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import { insertFixture } from "../support/Fixtures.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

// Enough for the sign-in (the invite's form and its answer); nothing refills during the test.
const addressLimit = { perSecond: 0.001, burst: 6 }

const TestLayer = Layer.mergeAll(serverLayer({ dashboard: true, addressLimit }), AccountsLive).pipe(
  Layer.provideMerge(TestDatabase.layer)
)

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("a session verified a moment ago", (it) => {
  it.effect("is served behind an address keyless traffic has exhausted, and vouches no longer once signed out", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const fixture = yield* insertFixture
      const { client, csrf } = yield* signedIn(base, fixture.orgA, "member")
      // Keyless traffic from the same address spends the whole allowance.
      let last = 0
      for (let i = 0; i <= addressLimit.burst && last !== 429; i++) {
        last = (yield* run(() => fetch(`${base}/v1/vendors`))).status
      }
      assert.strictEqual(last, 429)
      for (let i = 0; i < 3; i++) {
        assert.strictEqual((yield* run(() => client.get("/dashboard/overview"))).status, 200, `page load ${i + 1}`)
      }
      const forged = yield* run(() =>
        fetch(`${base}/dashboard/overview`, { headers: { cookie: `pr_session=${"A".repeat(43)}` }, redirect: "manual" })
      )
      assert.strictEqual(forged.status, 429)
      // Signed out, the cookie vouches once more at most: the guard finds the session gone (one
      // lookup, a redirect to sign in, the allowance spent) and forgets it.
      const cookie = client.cookie!
      assert.strictEqual((yield* run(() => client.post("/dashboard/sign-out", { csrf }))).status, 303)
      const stale = () => fetch(`${base}/dashboard/overview`, { headers: { cookie }, redirect: "manual" })
      assert.strictEqual((yield* run(stale)).status, 303)
      assert.strictEqual((yield* run(stale)).status, 429)
    })
  )

  it.effect("verified by another server of the process, vouches nothing here", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const base = yield* BaseUrl
        const other = Context.get(yield* Layer.build(serverLayer({ dashboard: true, addressLimit })), BaseUrl)
        const sql = yield* SqlClient.SqlClient
        const [org] = yield* Effect.orDie(
          sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Org V') RETURNING id`
        )
        // Signed in on the other server, which verifies the session; this one's allowance is spent.
        const { client } = yield* signedIn(other, org!.id, "member")
        let last = 0
        for (let i = 0; i <= addressLimit.burst && last !== 429; i++) {
          last = (yield* run(() => fetch(`${base}/v1/vendors`))).status
        }
        assert.strictEqual(last, 429)
        const elsewhere = yield* run(() =>
          fetch(`${base}/dashboard/overview`, { headers: { cookie: client.cookie! }, redirect: "manual" })
        )
        assert.strictEqual(elsewhere.status, 429)
      })
    )
  )
})
