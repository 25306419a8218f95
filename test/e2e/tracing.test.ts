/**
 * With `OTEL_EXPORTER_OTLP_ENDPOINT` set, the app exports its spans over OTLP/HTTP: a local
 * collector receives the spans of a request, named by what they did. What reaches it carries no
 * secret from a request's target: neither an invite link's token nor a key sent in a path, while
 * the work those requests did is still traced.
 */
import { spawn } from "node:child_process"
import { createServer } from "node:http"
import { join } from "node:path"
import { assert, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { eventually } from "../support/Eventually.ts"
import { freePort } from "../support/ports.ts"
import * as TestDatabase from "../support/TestDatabase.ts"

const root = join(import.meta.dirname, "..", "..")

const inviteToken = "Qx7".repeat(14).concat("Z")
const keyInPath = "pr_live_SecretInPath0123456789abcdefghijklmnopq"

/** The app exporting to a collector of the test's own: its address, and the bodies the collector received. */
const tracedApp = (env: Record<string, string> = {}) =>
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
    const base = `http://127.0.0.1:${port}`
    yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, [join(root, "app", "main.ts"), "serve"], {
          env: {
            ...process.env,
            DATABASE_URL: url,
            PORT: String(port),
            HOST: "127.0.0.1",
            DEMO_SEED: "false",
            DASHBOARD: "on",
            OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
            ...env
          },
          stdio: ["ignore", "ignore", "ignore"]
        })
      ),
      (process) => Effect.sync(() => process.kill("SIGTERM"))
    )

    // Up once /health answers (a request that gets no answer is given up and asked again, as
    // one refused is); /health passes no authorization, so every `Authorization.bearer` span
    // below is of a request this test makes after it.
    yield* eventually(
      "the app answering /health",
      Effect.promise(() =>
        fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) }).then(
          (r) => r.status === 200,
          () => false
        )
      ),
      { attempts: 100, interval: Duration.millis(100) }
    )
    return { base, received }
  })

layer(TestDatabase.layer, { timeout: 60_000, excludeTestServices: true })("tracing", (it) => {
  it.effect("exports the spans of requests to the configured collector, without the secrets of their targets", () =>
    Effect.gen(function* () {
      const url = yield* TestDatabase.TestDatabaseUrl
      const { base, received } = yield* tracedApp()
      assert.strictEqual(inviteToken.length, 43)
      const invite = yield* Effect.promise(() => fetch(`${base}/dashboard/invite/${inviteToken}`))
      assert.strictEqual(invite.status, 410)
      yield* Effect.promise(() => fetch(`${base}/v1/receivables/${keyInPath}`))
      // Spans are exported in the order they end: once the span of a request after these two has
      // arrived (a second `Authorization.bearer`, the first being the key-in-path request's), the
      // spans of these two have arrived too, if they were recorded at all.
      const bearerSpans = () => received.join("").split('"name":"Authorization.bearer"').length - 1
      yield* eventually(
        "the span of a request made after the two",
        Effect.promise(async () => {
          await fetch(`${base}/v1/vendors`, { headers: { authorization: "Bearer pr_live_x" } })
          return bearerSpans() >= 2
        }),
        { attempts: 50, interval: Duration.millis(200) }
      )
      const spans = received.join("\n")
      assert.include(spans, "partner-receivables")
      assert.include(spans, "Authorization.bearer")
      assert.include(spans, "Accounts.inviteFor", "the invite request's work is still traced")
      // Database spans name the real server and database, not the driver's defaults.
      const database = new URL(url)
      assert.include(spans, `"db.namespace","value":{"stringValue":"${database.pathname.slice(1)}"}`)
      assert.include(spans, `"server.port","value":{"intValue":${database.port}}`)
      assert.notInclude(spans, inviteToken)
      assert.notInclude(spans, keyInPath)
      assert.notInclude(spans, "SecretInPath")
    })
  )
  it.effect("keeps the share of traces OTEL_TRACES_SAMPLER says, and follows a caller's sampled parent", () =>
    Effect.gen(function* () {
      const { base, received } = yield* tracedApp({
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0"
      })
      // Traces started here: none kept. A request whose caller sampled its trace: kept, as the
      // parent decided. Spans are exported in the order they end, so once the second request's
      // have arrived, the first one's would have too.
      yield* Effect.promise(() => fetch(`${base}/v1/vendors`, { headers: { authorization: "Bearer pr_live_x" } }))
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
      yield* eventually(
        "the spans of the request whose caller sampled it",
        Effect.promise(async () => {
          await fetch(`${base}/v1/vendors`, {
            headers: { authorization: "Bearer pr_live_x", traceparent: `00-${traceId}-00f067aa0ba902b7-01` }
          })
          return received.join("").includes(traceId)
        }),
        { attempts: 50, interval: Duration.millis(200) }
      )
      const traceIds = new Set(received.join("").match(/"traceId":"[0-9a-f]{32}"/g) ?? [])
      assert.deepStrictEqual([...traceIds], [`"traceId":"${traceId}"`], "no trace started here was kept")
    })
  )
})
