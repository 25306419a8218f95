/**
 * A connector that polls a portal's API takes effect's `HttpClient` from its context, so that a
 * test can give it an in-process portal. The sync engine runs connectors that need nothing: the
 * registry gives each its client (`withHttp`), the bundled app's being the runtime's `fetch`
 * (`layer`). Whatever the client, `requestJson` follows redirects itself and tells a fetch-based
 * client not to, so the origin check holds on every hop.
 */
import { type Layer, Stream } from "effect"
import { FetchHttpClient, type HttpClient } from "effect/http"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import type { ConnectorFailed, PairToFetch, PortalConnector } from "../../../core/receivables/ports/PortalConnector.ts"

/** A `PortalConnector` whose fetch may need an `HttpClient`. */
export interface HttpPortalConnector extends Omit<PortalConnector, "fetch"> {
  readonly fetch: (pair: PairToFetch) => Stream.Stream<FetchedDocument, ConnectorFailed, HttpClient.HttpClient>
}

/** The connector with its HTTP going through the client of `http`. */
export const withHttp = (
  connector: HttpPortalConnector,
  http: Layer.Layer<HttpClient.HttpClient>
): PortalConnector => ({
  ...connector,
  fetch: (pair) => Stream.provide(connector.fetch(pair), http)
})

/** The bundled app's client: the runtime's `fetch`. */
export const layer: Layer.Layer<HttpClient.HttpClient> = FetchHttpClient.layer
