/**
 * The dashboard in the app: whether it is served (`DASHBOARD`, on unless `off`), and the HTTP
 * routes of the `serve` role with the dashboard's pages mounted beside the API's, both under the
 * request pipeline (`adapters/http`). The dashboard's services over PostgreSQL are chosen here.
 */
import { Config, Effect, Layer, Schema } from "effect"
import * as DashboardRoutes from "../adapters/http/dashboard/Routes.ts"
import { DashboardMounted } from "../adapters/http/pipeline/RequestPath.ts"
import * as Routes from "../adapters/http/Routes.ts"
import * as PgDashboardAuditLog from "../adapters/postgres/PgDashboardAuditLog.ts"
import { DashboardAudit } from "../core/services/DashboardAudit.ts"
import { DashboardIntegrations } from "../core/services/DashboardIntegrations.ts"
import { DashboardKeys } from "../core/services/DashboardKeys.ts"
import { DashboardUsage } from "../core/services/DashboardUsage.ts"
import { DashboardAccessLive, DirectoryLive } from "./Layers.ts"
import * as PublicUrl from "./PublicUrl.ts"

export const enabled = Config.schema(Schema.Literals(["on", "off"]), "DASHBOARD").pipe(
  Config.withDefault("on" as const),
  Config.map((value) => value === "on")
)

const pages = Layer.unwrap(
  Effect.gen(function* () {
    const publicUrl = yield* PublicUrl.publicUrl
    return DashboardRoutes.routes({ publicHttps: publicUrl.startsWith("https://") })
  })
).pipe(
  Layer.provide(
    // The request log (`AuditLog`) is the API's own, shared with the pipeline that writes it.
    Layer.mergeAll(
      Layer.mergeAll(DashboardAudit.layer.pipe(Layer.provide(PgDashboardAuditLog.layer)), DashboardUsage.layer).pipe(
        Layer.provideMerge(DashboardKeys.layer)
      ),
      DashboardIntegrations.layer
    ).pipe(Layer.provideMerge(DashboardAccessLive), Layer.provideMerge(DirectoryLive))
  )
)

/** The routes the `serve` role answers: the API's, and the dashboard's when it is on. */
export const routes = (dashboard: boolean) =>
  dashboard
    ? Layer.mergeAll(Routes.routes, pages).pipe(Layer.provide(Layer.succeed(DashboardMounted, true)))
    : Routes.routes
