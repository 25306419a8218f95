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
import * as PgKeyUsageStore from "../adapters/postgres/PgKeyUsageStore.ts"
import * as PgReceivableSearch from "../adapters/postgres/PgReceivableSearch.ts"
import * as PgWebhookOverview from "../adapters/postgres/PgWebhookOverview.ts"
import { IntegrationAdministration } from "../core/admin/services/IntegrationAdministration.ts"
import { KeyAdministration } from "../core/admin/services/KeyAdministration.ts"
import { OrganizationAudit } from "../core/admin/services/OrganizationAudit.ts"
import { OrganizationUsage } from "../core/admin/services/OrganizationUsage.ts"
import { PairSyncNow } from "../core/admin/services/PairSyncNow.ts"
import { ReceivableFinder } from "../core/receivables/services/ReceivableFinder.ts"
import { AccountsLive, AdminLive, DirectoryLive } from "./Layers.ts"
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
      Layer.mergeAll(
        OrganizationAudit.layer.pipe(Layer.provide(PgDashboardAuditLog.layer)),
        OrganizationUsage.layer.pipe(Layer.provide(PgKeyUsageStore.layer))
      ).pipe(Layer.provideMerge(KeyAdministration.layer)),
      // "Sync now" runs the engine in the serving process, limited as the command line's is.
      PairSyncNow.layer.pipe(Layer.provide(AdminLive), Layer.provideMerge(IntegrationAdministration.layer)),
      ReceivableFinder.layer.pipe(Layer.provide(PgReceivableSearch.layer)),
      PgWebhookOverview.layer
    ).pipe(Layer.provideMerge(AccountsLive), Layer.provideMerge(DirectoryLive))
  )
)

/** The routes the `serve` role answers: the API's, and the dashboard's when it is on. */
export const routes = (dashboard: boolean) =>
  dashboard
    ? Layer.mergeAll(Routes.routes, pages).pipe(Layer.provide(Layer.succeed(DashboardMounted, true)))
    : Routes.routes
