/**
 * The dashboard's routes under `/dashboard`, registered on the service's HTTP router beside the
 * API (whose request pipeline audits and address-limits them): getting in and out (`AccessRoutes.ts`),
 * the account's second factor (`AccountRoutes.ts`), the keys (`KeyRoutes.ts`), the overview and the
 * pairs (`IntegrationRoutes.ts`), the receivables (`ReceivableRoutes.ts`), the webhooks (`WebhookRoutes.ts`), the assets, and the dashboard's own 404 page. Every POST passes the
 * same-origin check first, then (once signed in) the session's CSRF token (`Handlers.ts`). Uses
 * the core's services, never storage; imports nothing from other
 * adapters.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import * as KeyRoutes from "./access/KeyRoutes.ts"
import * as AccessRoutes from "./accounts/AccessRoutes.ts"
import * as AccountRoutes from "./accounts/AccountRoutes.ts"
import * as AuditRoutes from "./admin/AuditRoutes.ts"
import * as TeamRoutes from "./admin/TeamRoutes.ts"
import { assetCacheControl, assetsPrefix, findAsset } from "./frame/Assets.ts"
import { type GuardOptions, makeGuards, notFound, overviewPath, seeOther } from "./frame/Handlers.ts"
import * as Security from "./frame/Security.ts"
import * as IntegrationRoutes from "./receivables/IntegrationRoutes.ts"
import * as ReceivableExportRoutes from "./receivables/ReceivableExportRoutes.ts"
import * as ReceivableRoutes from "./receivables/ReceivableRoutes.ts"
import * as WebhookRoutes from "./webhooks/WebhookRoutes.ts"

const assetResponses = new Map<string, HttpServerResponse.HttpServerResponse>()

const assetResponse = (name: string) => {
  const known = assetResponses.get(name)
  if (known !== undefined) return known
  const asset = findAsset(name)
  if (asset === undefined) return undefined
  const response = HttpServerResponse.setHeader(
    Security.secured(HttpServerResponse.text(asset.body, { contentType: asset.contentType })),
    "cache-control",
    assetCacheControl
  )
  assetResponses.set(name, response)
  return response
}

export const routes = (options: GuardOptions) =>
  HttpRouter.use(
    Effect.fn(function* (router) {
      const guards = yield* makeGuards(options)
      yield* AccessRoutes.register(router, guards)
      yield* AccountRoutes.register(router, guards)
      yield* KeyRoutes.register(router, guards)
      yield* IntegrationRoutes.register(router, guards)
      yield* ReceivableRoutes.register(router, guards)
      yield* ReceivableExportRoutes.register(router, guards)
      yield* AuditRoutes.register(router, guards)
      yield* TeamRoutes.register(router, guards)
      yield* WebhookRoutes.register(router, guards)

      // Named by their digest (`Assets.ts`), so kept by browsers, unlike every page. One response
      // per asset, made once: the pipeline compresses each once and serves the copies
      // (`transport/StaticResponses.ts`), with an ETag per encoding.
      yield* router.add(
        "GET",
        `${assetsPrefix}:name`,
        Effect.map(HttpRouter.params, ({ name }) => (name === undefined ? undefined : assetResponse(name)) ?? notFound)
      )

      // `/dashboard` itself leads to the overview; anything else under it is the dashboard's own 404
      // page, whatever the method (the router's wildcard also takes `/dashboard`).
      yield* router.add("*", "/dashboard/*", (request) =>
        Effect.succeed(request.method === "GET" && request.url === "/dashboard" ? seeOther(overviewPath) : notFound)
      )
    })
  )
