/**
 * The service's entry point: `npm start` (API and scheduler), `npm run serve` (API only) or
 * `npm run worker` (scheduler only), so that each can be scaled on its own against one database.
 * Connect to PostgreSQL (embedded unless DATABASE_URL is set), migrate, serve and/or sync; on SIGINT/SIGTERM stop serving and
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
import * as Logging from "./Logging.ts"
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

const roles = ["all", "serve", "worker"] as const
type Role = (typeof roles)[number]

const main = Effect.gen(function* () {
  const role = (process.argv[2] ?? "all") as Role
  if (!roles.includes(role)) {
    return yield* Effect.fail(new Error(`unknown role "${role}": use all (the default), serve or worker`))
  }
  // Settings first: a bad PORT is reported before any database work starts.
  const http = yield* AppConfig.http
  yield* Sync.settings
  yield* Logging.settings
  const demo = yield* Demo.enabled
  const api = Layer.merge(HttpLive(http), DemoLive(http, demo))
  if (role === "serve") return yield* Layer.launch(api.pipe(Layer.provide(DatabaseLive)))
  if (role === "worker") return yield* Layer.launch(Sync.SchedulerLive.pipe(Layer.provide(DatabaseLive)))
  return yield* Layer.launch(Layer.merge(api, Sync.SchedulerLive).pipe(Layer.provide(DatabaseLive)))
}).pipe(Effect.provide(Logging.layer))

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
