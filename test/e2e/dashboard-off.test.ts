/**
 * With `DASHBOARD=off` (the test server's default) the dashboard's paths are like any unknown
 * path: 404 `resource_missing` in the API's shape, audited as such.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { assetPath } from "../../adapters/http/dashboard/frame/Assets.ts"
import { BaseUrl, layer as serverLayer } from "../support/TestServer.ts"

layer(serverLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard turned off", (it) => {
  it.effect("answers its paths as unknown ones", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      for (const [method, path] of [
        ["GET", "/dashboard"],
        ["GET", "/dashboard/sign-in"],
        ["POST", "/dashboard/sign-in"],
        ["GET", assetPath("pico.css")]
      ] as const) {
        const answer = yield* Effect.promise(() => fetch(`${base}${path}`, { method, redirect: "manual" }))
        assert.strictEqual(answer.status, 404, path)
        const body = (yield* Effect.promise(() => answer.json())) as { error: { code: string } }
        assert.strictEqual(body.error.code, "resource_missing", path)
        assert.isNull(answer.headers.get("set-cookie"))
      }
    })
  )
})
