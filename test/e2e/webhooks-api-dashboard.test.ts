/**
 * The dashboard's key form grants the webhooks permission: a key created with its box ticked
 * manages webhook endpoints through the API, one created without it reads only (403 there).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../app/Layers.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const TestLayer = Layer.mergeAll(serverLayer({ dashboard: true }), AccountsLive).pipe(
  Layer.provideMerge(TestDatabase.layer)
)

const endpoints = (base: string, key: string) =>
  run(() => fetch(`${base}/v1/webhook_endpoints`, { headers: { authorization: `Bearer ${key}` } }))

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard's key form", (it) => {
  it.effect("grants the webhooks permission only when its box is ticked", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const sql = yield* SqlClient.SqlClient
      const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Form') RETURNING id`
      const { client, csrf } = yield* signedIn(base, org!.id, "admin")
      const form = yield* run(() => client.get("/dashboard/keys"))
      assert.match(form.body, /<input id="webhooks" name="webhooks" type="checkbox" value="on"/)
      const created = (fields: Record<string, string>) =>
        Effect.gen(function* () {
          // The form redirects to the page that shows the new key once.
          const answer = yield* run(() => client.post("/dashboard/keys", { csrf, ...fields }))
          assert.strictEqual(answer.status, 303)
          const shown = yield* run(() => client.get(answer.headers.get("location") ?? ""))
          return /id="new-key"[^>]*value="(pr_live_[0-9A-Za-z]{39})"/.exec(shown.body)?.[1] ?? ""
        })
      const manager = yield* created({ name: "hooks", webhooks: "on" })
      const reader = yield* created({ name: "reader" })
      assert.strictEqual((yield* endpoints(base, manager)).status, 200)
      assert.strictEqual((yield* endpoints(base, reader)).status, 403)
      const stored = yield* sql<{ name: string; permissions: Array<string> }>`
        SELECT name, permissions FROM api_keys WHERE org_id = ${org!.id} ORDER BY name`
      assert.deepStrictEqual(
        stored.map((row) => [row.name, row.permissions]),
        [
          ["hooks", ["webhooks"]],
          ["reader", []]
        ]
      )
    })
  )
})
