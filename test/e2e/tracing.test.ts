/**
 * With `OTEL_EXPORTER_OTLP_ENDPOINT` set, the app exports its spans over OTLP/HTTP: a local
 * collector receives the spans of a request, named by what they did.
 */
import { spawn } from "node:child_process"
import { createServer } from "node:http"
import { join } from "node:path"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { freePort } from "../support/ports.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

const root = join(import.meta.dirname, "..", "..")

layer(TestDatabase.layer, { timeout: 60_000, excludeTestServices: true })("tracing", (it) => {
  it.effect("exports the spans of a request to the configured collector", () =>
    Effect.gen(function* () {
      const url = yield* TestDatabase.TestDatabaseUrl
      const received: Array<string> = []
      const collector = createServer((request, response) => {
        let body = ""
        request.on("data", (chunk) => {
          body += chunk
        })
        request.on("end", () => {
          if (request.url === "/v1/traces") received.push(body)
          response.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      const collectorPort = yield* Effect.promise(freePort)
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((resolve) => collector.listen(collectorPort, "127.0.0.1", resolve))),
        () => Effect.sync(() => collector.close())
      )
      const port = yield* Effect.promise(freePort)
      yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, [join(root, "app", "main.ts"), "serve"], {
            env: {
              ...process.env,
              DATABASE_URL: url,
              PORT: String(port),
              HOST: "127.0.0.1",
              DEMO_SEED: "false",
              OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`
            },
            stdio: ["ignore", "ignore", "ignore"]
          })
        ),
        (process) => Effect.sync(() => process.kill("SIGTERM"))
      )

      for (let i = 0; i < 100; i++) {
        const up = yield* Effect.promise(() =>
          fetch(`http://127.0.0.1:${port}/v1/vendors`).then(
            (r) => r.status === 401,
            () => false
          )
        )
        if (up) break
        yield* Effect.sleep("100 millis")
      }
      for (let i = 0; i < 50 && !received.join("").includes("Authorization.bearer"); i++) {
        yield* Effect.promise(() =>
          fetch(`http://127.0.0.1:${port}/v1/vendors`, { headers: { authorization: "Bearer pr_live_x" } })
        )
        yield* Effect.sleep("200 millis")
      }
      const spans = received.join("\n")
      assert.include(spans, "partner-receivables")
      assert.include(spans, "Authorization.bearer")
    })
  )
})
