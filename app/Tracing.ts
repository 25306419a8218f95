/**
 * Optional OpenTelemetry traces: when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (an OTLP/HTTP
 * collector, e.g. `http://localhost:4318`), every request, query and sync span is exported as
 * `OTEL_SERVICE_NAME` (default `partner-receivables`). Unset, nothing is traced or sent. A request
 * whose target carries a secret (anything `RequestPath.redactSecrets` would cut: a key, an invite
 * link's token) gets no request span, since that span records the raw path: the work it did is
 * still traced. The workers' polls that find nothing and the scrapes of `/metrics` are not traced
 * (`Scheduler`, `WebhookDelivery`, `MetricsListener`), so an idle worker sends no spans.
 * Sampling follows `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`, parent-based: a trace that
 * starts here is kept with the ratio (`always_on` 1, the default; `always_off` 0;
 * `traceidratio` its argument), and a span under a parent (a caller's `traceparent` among them)
 * follows the parent's decision.
 */
import { Config, Effect, Layer, Option, Schema, Tracer } from "effect"
import { FetchHttpClient, HttpMiddleware } from "effect/http"
import { OtlpExporter, OtlpSerialization, OtlpTracer } from "effect/observability"
import { redactSecrets } from "../adapters/http/pipeline/RequestPath.ts"
import * as ApiKeys from "../core/access/services/ApiKeys.ts"

const samplers = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio"
] as const

export const settings = Config.all({
  endpoint: Config.option(Config.URL("OTEL_EXPORTER_OTLP_ENDPOINT")),
  serviceName: Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("partner-receivables")),
  sampler: Config.schema(Schema.Literals(samplers), "OTEL_TRACES_SAMPLER").pipe(
    Config.withDefault("parentbased_always_on" as const)
  ),
  samplerArg: Config.schema(
    Schema.FiniteFromString.check(Schema.isBetween({ minimum: 0, maximum: 1 })),
    "OTEL_TRACES_SAMPLER_ARG"
  ).pipe(Config.withDefault(1))
})

/** The share of traces started here that are kept, by the sampler's name and its argument. */
export const ratioOf = (sampler: (typeof samplers)[number], argument: number) =>
  sampler.endsWith("always_on") ? 1 : sampler.endsWith("always_off") ? 0 : argument

/**
 * `tracer` keeping `ratio` of the traces that start here: the decision is made at a trace's
 * first span and its children inherit it (effect marks a span under an unsampled parent
 * unsampled); a span with a parent is left to it.
 */
export const sampledAt = (tracer: Tracer.Tracer, ratio: number): Tracer.Tracer =>
  Tracer.make({
    span: (options) =>
      tracer.span(
        (Option.isNone(options.parent) || options.root) && options.sampled
          ? { ...options, sampled: ratio >= 1 || Math.random() < ratio }
          : options
      ),
    context: tracer.context
  })

const untracedSecrets = Layer.unwrap(
  Effect.map(ApiKeys.brand, (keyBrand) =>
    Layer.succeed(HttpMiddleware.TracerDisabledWhen)((request) => redactSecrets(request.url, keyBrand) !== request.url)
  )
)

export const layer = Layer.unwrap(
  Effect.map(settings, ({ endpoint, serviceName, sampler, samplerArg }) =>
    Option.match(endpoint, {
      onNone: () => Layer.empty,
      onSome: (url) =>
        Layer.effect(
          Tracer.Tracer,
          Effect.map(
            OtlpTracer.make({
              url: new URL("v1/traces", url.href.endsWith("/") ? url : `${url.href}/`).href,
              resource: { serviceName, serviceVersion: "0.1.0" },
              exportInterval: "1 second"
            }),
            (tracer) => sampledAt(tracer, ratioOf(sampler, samplerArg))
          )
        ).pipe(
          Layer.provideMerge(OtlpExporter.layerFlusher),
          Layer.provide(OtlpSerialization.layerJson),
          Layer.provide(FetchHttpClient.layer),
          Layer.merge(untracedSecrets)
        )
    })
  )
)
