/**
 * Optional OpenTelemetry traces: when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (an OTLP/HTTP
 * collector, e.g. `http://localhost:4318`), every request, query and sync span is exported as
 * `OTEL_SERVICE_NAME` (default `partner-receivables`). Unset, nothing is traced or sent. A request
 * whose target carries a secret (anything `RequestPath.redactSecrets` would cut: a key, an invite
 * link's token) gets no request span, since that span records the raw path: the work it did is
 * still traced.
 */
import { Config, Effect, Layer, Option } from "effect"
import { FetchHttpClient, HttpMiddleware } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"
import { redactSecrets } from "../adapters/http/pipeline/RequestPath.ts"
import * as ApiKeys from "../core/access/services/ApiKeys.ts"

export const settings = Config.all({
  endpoint: Config.option(Config.URL("OTEL_EXPORTER_OTLP_ENDPOINT")),
  serviceName: Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("partner-receivables"))
})

const untracedSecrets = Layer.unwrap(
  Effect.map(ApiKeys.brand, (keyBrand) =>
    Layer.succeed(HttpMiddleware.TracerDisabledWhen)((request) => redactSecrets(request.url, keyBrand) !== request.url)
  )
)

export const layer = Layer.unwrap(
  Effect.map(settings, ({ endpoint, serviceName }) =>
    Option.match(endpoint, {
      onNone: () => Layer.empty,
      onSome: (url) =>
        OtlpTracer.layer({
          url: new URL("v1/traces", url.href.endsWith("/") ? url : `${url.href}/`).href,
          resource: { serviceName, serviceVersion: "0.1.0" },
          exportInterval: "1 second"
        }).pipe(
          Layer.provide(OtlpSerialization.layerJson),
          Layer.provide(FetchHttpClient.layer),
          Layer.merge(untracedSecrets)
        )
    })
  )
)
