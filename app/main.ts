/**
 * The service's entry point (`npm start`): connect to PostgreSQL (embedded unless DATABASE_URL is
 * set), migrate, serve HTTP and run the sync scheduler; on SIGINT/SIGTERM stop serving and
 * syncing (a sync in flight rolls back), close the pool and stop the embedded server. A failure
 * to start prints one line saying what is wrong and exits non-zero.
 */

import { createServer } from "node:http"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Layer } from "effect"
import { HttpRouter } from "effect/http"
import * as RateLimiter from "../adapters/http/RateLimiter.ts"
import * as Server from "../adapters/http/Server.ts"
import * as Database from "../adapters/postgres/Database.ts"
import * as Migrations from "../adapters/postgres/Migrations.ts"
import { Organizations } from "../core/ports/Organizations.ts"
import * as AppConfig from "./Config.ts"
import * as Demo from "./Demo.ts"
import { AdminLive, ServicesLive } from "./Layers.ts"
import { describeStartFailure } from "./StartFailure.ts"
import * as Sync from "./Sync.ts"

const DatabaseLive = Migrations.layer.pipe(Layer.provideMerge(Database.layer))

const HttpLive = ({ port, host }: AppConfig.Http) =>
  HttpRouter.serve(Server.routes, { disableLogger: true }).pipe(
    Layer.provide([ServicesLive, RateLimiter.layer]),
    Layer.provide(NodeHttpServer.layer(createServer, { port, host }))
  )

// On an empty database, the demo: data to read at once, and a key to read it with.
const DemoLive = (http: AppConfig.Http, enabled: boolean) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      if (!enabled || (yield* (yield* Organizations).list).length > 0) return
      const seeded = yield* Demo.seed()
      const host = http.host === "0.0.0.0" || http.host === "::" ? "localhost" : http.host
      process.stdout.write(Demo.welcome(seeded, `http://${host}:${http.port}`))
    })
  ).pipe(Layer.provide(AdminLive))

const main = Effect.gen(function* () {
  // Settings first: a bad PORT is reported before any database work starts.
  const http = yield* AppConfig.http
  yield* Sync.settings
  const demo = yield* Demo.enabled
  return yield* Layer.launch(
    Layer.mergeAll(HttpLive(http), Sync.SchedulerLive, DemoLive(http, demo)).pipe(Layer.provide(DatabaseLive))
  )
})

main.pipe(
  Effect.catchCause((cause) =>
    Cause.hasInterruptsOnly(cause)
      ? Effect.void
      : Effect.sync(() => {
          process.stderr.write(`partner-receivables: ${describeStartFailure(cause)}\n`)
          process.exitCode = 1
        })
  ),
  (program) =>
    NodeRuntime.runMain(program, {
      disableErrorReporting: true,
      // A stop asked for by SIGINT/SIGTERM is a clean exit, not a failure.
      teardown: (exit, onExit) =>
        onExit(Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause) ? 1 : Number(process.exitCode ?? 0))
    })
)
