/**
 * The app as operators run it, with `METRICS_PORT` set: the metrics are served on that port, on
 * loopback, and the public port answers `/metrics` as the unknown path it is there. A port that is
 * taken stops the start with one line naming the settings. Without the setting, nothing listens.
 */
import { createServer } from "node:net"
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Option } from "effect"
import * as AppConfig from "../../app/Config.ts"
import { healthy, spawnApp } from "../support/AppProcess.ts"
import { freePort } from "../support/ports.ts"
import { rawGet } from "../support/RawHttp.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

describe("the metrics settings", () => {
  it.effect("listen nowhere without METRICS_PORT, and on loopback unless METRICS_HOST says otherwise", () =>
    Effect.gen(function* () {
      const read = (env: Record<string, string>) => AppConfig.metrics.parse(ConfigProvider.fromEnv({ env }))
      assert.deepStrictEqual(yield* read({}), { port: Option.none(), host: "127.0.0.1" })
      assert.deepStrictEqual(yield* read({ METRICS_PORT: "9464" }), { port: Option.some(9464), host: "127.0.0.1" })
      assert.deepStrictEqual(yield* read({ METRICS_PORT: "9464", METRICS_HOST: "192.0.2.10" }), {
        port: Option.some(9464),
        host: "192.0.2.10"
      })
    })
  )
})

layer(TestDatabase.layer, { timeout: 60_000, excludeTestServices: true })("the metrics listener", (it) => {
  it.effect("METRICS_PORT serves /metrics on loopback, and the public port does not", () =>
    Effect.gen(function* () {
      const url = yield* TestDatabase.TestDatabaseUrl
      const [port, metricsPort] = yield* Effect.promise(() => Promise.all([freePort(), freePort()]))
      const app = spawnApp({
        DATABASE_URL: url,
        PORT: String(port),
        HOST: "127.0.0.1",
        METRICS_PORT: String(metricsPort)
      })
      const base = `http://127.0.0.1:${port}`
      try {
        yield* Effect.promise(() => healthy(base, app))
        const publicAnswer = yield* Effect.promise(() => rawGet(base, "/metrics"))
        assert.strictEqual(publicAnswer.status, 404)
        const scraped = yield* Effect.promise(() => rawGet(`http://127.0.0.1:${metricsPort}`, "/metrics"))
        assert.strictEqual(scraped.status, 200)
        assert.include(scraped.body, 'http_requests_total{route="unmatched",method="GET",status="404"} 1')
        assert.match(scraped.body, /^audit_queue_depth \d+$/m)
        // Both roles in one: the process delivers webhooks too.
        assert.match(scraped.body, /^webhook_deliveries_waiting 0$/m)
      } finally {
        app.child.kill("SIGTERM")
        yield* Effect.promise(() => app.exited)
      }
    })
  )

  it.effect("a METRICS_PORT in use stops the start with one line naming the setting", () =>
    Effect.gen(function* () {
      const url = yield* TestDatabase.TestDatabaseUrl
      const [port, metricsPort] = yield* Effect.promise(() => Promise.all([freePort(), freePort()]))
      const blocker = createServer().listen(metricsPort, "127.0.0.1")
      const app = spawnApp({
        DATABASE_URL: url,
        PORT: String(port),
        HOST: "127.0.0.1",
        METRICS_PORT: String(metricsPort)
      })
      const code = yield* Effect.promise(() => app.exited)
      blocker.close()
      assert.strictEqual(code, 1)
      assert.match(
        app.output().trim(),
        new RegExp(
          `^partner-receivables: failed to start: cannot listen for metrics on 127\\.0\\.0\\.1:${metricsPort} \\(.*EADDRINUSE.*\\): set METRICS_PORT and METRICS_HOST$`
        )
      )
    })
  )
})
