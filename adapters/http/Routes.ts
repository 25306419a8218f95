/**
 * All HTTP routes of the service: the v1 API (from the contract), its OpenAPI document at
 * `/v1/openapi.json` and browsable reference at `/docs` with its script and `/favicon.ico` (all
 * public), the probes, and the pipeline every request meets (`pipeline/Pipeline.ts`). The metrics
 * have a listener of their own (`probes/MetricsListener.ts`). Requires the core `Receivables` and
 * `Events` services, `ApiKeys`, `AuditLog` and `Readiness`.
 */
import { Layer } from "effect"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { Api } from "../../core/api/Api.ts"
import * as SecuritySchemes from "../../core/api/openapi/SecuritySchemes.ts"
import * as Authorization from "./api/Authorization.ts"
import * as DocsAssets from "./api/DocsAssets.ts"
import * as EventsHttp from "./api/EventsHttp.ts"
import * as ReceivablesHttp from "./api/ReceivablesHttp.ts"
import * as RequestValidation from "./api/RequestValidation.ts"
import * as WebhooksBody from "./api/WebhooksBody.ts"
import * as WebhooksHttp from "./api/WebhooksHttp.ts"
import * as Pipeline from "./pipeline/Pipeline.ts"
import * as RequestPath from "./pipeline/RequestPath.ts"
import * as Health from "./probes/Health.ts"

export const routes = Layer.mergeAll(
  HttpApiBuilder.layer(Api, { openapiPath: RequestPath.openApiPath }).pipe(
    Layer.provide([ReceivablesHttp.layer, EventsHttp.layer, WebhooksHttp.layer])
  ),
  HttpApiScalar.layer(Api, {
    path: RequestPath.docsPath,
    scalar: { authentication: { preferredSecurityScheme: SecuritySchemes.preferredScheme } }
  }),
  DocsAssets.routes,
  Health.routes,
  Pipeline.layer
).pipe(
  Layer.provide([
    Authorization.layer,
    Authorization.webhooksPermission,
    WebhooksBody.layer,
    RequestValidation.layer,
    DocsAssets.layer
  ])
)
