/**
 * `demo seed` as operators run it: the lines it prints to paste reach the service where it
 * listens, `PUBLIC_URL` or this machine's `PORT`, never a port it does not use.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { runCli } from "../support/Cli.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

layer(TestDatabase.layer, { timeout: 120_000, excludeTestServices: true })("the operator CLI's demo", (it) => {
  it.effect("prints curl lines and the reference at PORT, or at PUBLIC_URL when it is set", () =>
    Effect.gen(function* () {
      const byPort = yield* runCli(["demo", "seed"], { PORT: "4567" })
      assert.strictEqual(byPort.code, 0, byPort.stderr)
      assert.include(byPort.stdout, `"http://localhost:4567/v1/vendors"`)
      assert.include(byPort.stdout, "API reference: http://localhost:4567/docs")
      assert.notInclude(byPort.stdout, ":3000")

      const byUrl = yield* runCli(["demo", "seed"], { PUBLIC_URL: "https://receivables.example.com" })
      assert.strictEqual(byUrl.code, 0, byUrl.stderr)
      assert.include(byUrl.stdout, `"https://receivables.example.com/v1/vendors"`)
      assert.notInclude(byUrl.stdout, "localhost")
    })
  )
})
