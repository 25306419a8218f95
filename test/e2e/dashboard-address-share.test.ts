/**
 * Signed-in dashboard users count against their session, not against the allowance their client
 * address has for requests no key or session vouches for: a signed-in user's page loads go on
 * past that allowance (which the sign-in itself spends from), while keyless requests stop at it.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
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

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("the dashboard behind one address", (it) => {
  it.effect("a signed-in user's page loads do not spend the address's keyless allowance", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const fixture = yield* insertFixture
      const { client } = yield* signedIn(base, fixture.orgA, "member")
      for (let i = 0; i < 3 * addressLimit.burst; i++) {
        const page = yield* run(() => client.get("/dashboard/overview"))
        assert.strictEqual(page.status, 200, `page load ${i + 1}`)
      }
      // The allowance is still there for what no session vouches for, and it still ends.
      const keyless: Array<number> = []
      for (let i = 0; i < addressLimit.burst + 1; i++) {
        keyless.push((yield* run(() => fetch(`${base}/v1/vendors`))).status)
      }
      assert.include(keyless, 401)
      assert.strictEqual(keyless.at(-1), 429)
    })
  )
})
