/**
 * The typed client of the contract for Effect programs: `HttpApiClient` over `Api`, with the
 * client side of the `Authorization` middleware already supplied (the key as a bearer token).
 * It needs an `HttpClient` (`FetchHttpClient.layer`, or Node's); it depends on nothing else.
 */
import { Context, Effect, Layer, type Redacted } from "effect"
import { type HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import { Api } from "./Api.ts"
import { Authorization } from "./Security.ts"

export interface Options {
  /** Where the API is served, such as `https://receivables.example.com` (the paths carry `/v1`). */
  readonly baseUrl: string | URL
  /** Kept redacted: it is written only into the `Authorization` header, never into logs or errors. */
  readonly apiKey: Redacted.Redacted<string>
  /** Retries, timeouts, tracing: applied to every request, after the key is added. */
  readonly transformClient?: (client: HttpClient.HttpClient) => HttpClient.HttpClient
}

/** The client side of the contract's `Authorization` middleware: `Authorization: Bearer <key>`. */
export const authorization = (apiKey: Redacted.Redacted<string>) =>
  HttpApiMiddleware.layerClient(Authorization, ({ next, request }) =>
    next(HttpClientRequest.bearerToken(request, apiKey))
  )

export type Client = HttpApiClient.ForApi<typeof Api>

/** The typed client, e.g. `(yield* make(options)).receivables.list({ query })`. */
export const make = (options: Options): Effect.Effect<Client, never, HttpClient.HttpClient> =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    ...(options.transformClient === undefined ? {} : { transformClient: options.transformClient })
  }).pipe(Effect.provide(authorization(options.apiKey)))

/** The client as a service, for programs that take it from their context. */
export class ApiClient extends Context.Service<ApiClient, Client>()("core/api/ApiClient") {
  static readonly layer = (options: Options): Layer.Layer<ApiClient, never, HttpClient.HttpClient> =>
    Layer.effect(ApiClient, make(options))
}
