/**
 * The service's entry point: `node app/main.ts` (API and scheduler), `node app/main.ts serve` (API
 * only) or `node app/main.ts worker` (scheduler only), so that each can be scaled on its own
 * against one database; the npm scripts `start`, `serve` and `worker` `exec` the same, so that a
 * supervisor's signal reaches node rather than a shell that would not pass it on.
 * Connect to PostgreSQL (embedded unless DATABASE_URL is set), migrate, serve and/or sync. On
 * SIGINT/SIGTERM (effect's `runMain`) the program is interrupted and its layers released in
 * reverse: HTTP first drains the requests in flight (`NodeServer.serve`), the scheduler stops (a
 * sync in flight rolls back), the pool closes and the embedded server stops; the process then
 * exits 0. A failure to start prints one line saying what is wrong and exits non-zero.
 */

import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Layer, Option, Redacted } from "effect"
import * as NodeServer from "../adapters/http/NodeServer.ts"
import * as AddressLimiter from "../adapters/http/pipeline/AddressLimiter.ts"
import * as ClientAddress from "../adapters/http/pipeline/ClientAddress.ts"
import * as VerifiedSessions from "../adapters/http/pipeline/VerifiedSessions.ts"
import * as Metrics from "../adapters/http/probes/Metrics.ts"
import * as MetricsListener from "../adapters/http/probes/MetricsListener.ts"
import * as Database from "../adapters/postgres/Database.ts"
import * as Migrations from "../adapters/postgres/Migrations.ts"
import * as PgPairStore from "../adapters/postgres/PgPairStore.ts"
import * as PgWebhookDeliveryStore from "../adapters/postgres/PgWebhookDeliveryStore.ts"
import * as AuditRetention from "./AuditRetention.ts"
import * as AppConfig from "./Config.ts"
import * as Dashboard from "./Dashboard.ts"
import * as DashboardAuditRetention from "./DashboardAuditRetention.ts"
import * as Demo from "./Demo.ts"
import * as EventRetention from "./EventRetention.ts"
import { AccountsLive, AdminLive, FeedLive, LimitsLive, ServicesLive } from "./Layers.ts"
import * as Logging from "./Logging.ts"
import * as PublicUrl from "./PublicUrl.ts"
import * as SessionCleanup from "./SessionCleanup.ts"
import * as Settings from "./Settings.ts"
import { describeStartFailure } from "./StartFailure.ts"
import * as Sync from "./Sync.ts"
import * as Tracing from "./Tracing.ts"

const DatabaseLive = Migrations.layer.pipe(Layer.provideMerge(Database.layer))

// The process that runs the API and the workers at once (role `all`) delivers webhooks too.
const HttpLive = ({ port, host }: AppConfig.Http, metrics: AppConfig.Metrics, dashboard: boolean, delivers: boolean) =>
  Layer.merge(
    NodeServer.serve(Dashboard.routes(dashboard), { port, host, listenLog: true }),
    Option.match(metrics.port, {
      onNone: () => Layer.empty,
      onSome: (port) =>
        MetricsListener.serve(
          { port, host: metrics.host },
          delivers ? Effect.andThen(Metrics.apiGauges, Metrics.webhookGauges) : Metrics.apiGauges
        )
    })
  ).pipe(Layer.provide([ServicesLive, LimitsLive, AddressLimiter.layer, ClientAddress.layer, VerifiedSessions.layer]))

// On an empty database, the demo: data to read at once, a key to read it with, and (with the
// dashboard on) a link for the demo's admin to set a password. Printed only by the one process
// that seeded it.
const DemoLive = (http: AppConfig.Http, enabled: boolean, dashboard: boolean) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      if (!enabled) return yield* Effect.logDebug("no demo: DEMO_SEED is off (its default with DATABASE_URL)")
      const host = http.host === "0.0.0.0" || http.host === "::" ? "localhost" : http.host
      const base = (yield* PublicUrl.publicUrl) || `http://${host}:${http.port}`
      const seeded = yield* Demo.seedOnce(
        Effect.gen(function* () {
          const seeded = yield* Demo.seed()
          const invite = dashboard ? yield* Demo.inviteAdmin(seeded.orgId) : undefined
          return { seeded, invite }
        })
      )
      if (Option.isNone(seeded)) return yield* Effect.logDebug("no demo: the database has organizations already")
      const { invite } = seeded.value
      const link = invite === undefined ? undefined : Redacted.make(PublicUrl.inviteLink(base, Redacted.value(invite)))
      process.stdout.write(Demo.welcome(seeded.value.seeded, base, link))
    })
  ).pipe(Layer.provide([AdminLive, AccountsLive]))

const roles = ["all", "serve", "worker"] as const
type Role = (typeof roles)[number]

const main = Effect.gen(function* () {
  const role = (process.argv[2] ?? "all") as Role
  if (!roles.includes(role)) {
    return yield* Effect.fail(new Error(`unknown role "${role}": use all (the default), serve or worker`))
  }
  const http = yield* AppConfig.http
  const metrics = yield* AppConfig.metrics
  const demo = yield* Demo.enabled
  const dashboard = yield* Dashboard.enabled
  const api = Layer.mergeAll(
    HttpLive(http, metrics, dashboard, role === "all"),
    DemoLive(http, demo, dashboard),
    AuditRetention.layer,
    DashboardAuditRetention.layer,
    SessionCleanup.layer,
    EventRetention.layer.pipe(Layer.provide(FeedLive))
  )
  if (role === "serve") return yield* Layer.launch(api.pipe(Layer.provide(DatabaseLive)))
  if (role === "worker") {
    // A worker has no API, but its syncs and deliveries are the figures to watch.
    const workerMetrics = Option.match(metrics.port, {
      onNone: () => Layer.empty,
      onSome: (port) =>
        MetricsListener.serve(
          { port, host: metrics.host },
          Effect.andThen(Metrics.pairGauges, Metrics.webhookGauges)
        ).pipe(Layer.provide([PgPairStore.layer, PgWebhookDeliveryStore.layer]))
    })
    return yield* Layer.launch(Layer.merge(Sync.SchedulerLive, workerMetrics).pipe(Layer.provide(DatabaseLive)))
  }
  return yield* Layer.launch(Layer.merge(api, Sync.SchedulerLive).pipe(Layer.provide(DatabaseLive)))
}).pipe(
  Effect.provide([Logging.layer, Tracing.layer]),
  // Settings first, all of them: every bad one is reported before anything starts.
  (run) => Effect.andThen(Settings.validate, run)
)

const program = main.pipe(
  Effect.catchCause((cause) =>
    Cause.hasInterruptsOnly(cause)
      ? Effect.void
      : Effect.sync(() => {
          for (const line of describeStartFailure(cause)) process.stderr.write(`partner-receivables: ${line}\n`)
          process.exitCode = 1
        })
  )
)

// A stop asked for by SIGINT/SIGTERM (an interruption) exits 0; a failure to start has set 1.
NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  teardown: (exit, onExit) =>
    onExit(Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause) ? 1 : Number(process.exitCode ?? 0))
})
