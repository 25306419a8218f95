/**
 * The connectors of the bundled app, by kind. A new portal is one more entry here. Those that
 * poll an API reach it through the runtime's `fetch`.
 */
import { Layer, Option } from "effect"
import { PortalConnectors } from "../../core/receivables/ports/PortalConnector.ts"
import * as Coupa from "./coupa/CoupaConnector.ts"
import * as Cxml from "./cxml/CxmlConnector.ts"
import * as File from "./file/FileConnector.ts"
import * as FrLifecycle from "./fr-lifecycle/FrLifecycleConnector.ts"
import * as HttpJson from "./http-json/HttpJsonConnector.ts"
import * as Peppol from "./peppol/PeppolConnector.ts"
import * as HttpConnector from "./portal-client/HttpConnector.ts"
import * as Simulator from "./simulator/SimulatorConnector.ts"

export const all: ReadonlyArray<HttpConnector.HttpPortalConnector> = [
  Simulator.connector,
  File.connector,
  HttpJson.connector,
  Cxml.connector,
  Coupa.connector,
  Peppol.connector,
  FrLifecycle.connector
]

export const layerOf = (connectors: ReadonlyArray<HttpConnector.HttpPortalConnector>) => {
  const byKind = new Map(
    connectors.map((connector) => [connector.kind, HttpConnector.withHttp(connector, HttpConnector.layer)])
  )
  return Layer.succeed(PortalConnectors, PortalConnectors.of({ get: (kind) => Option.fromNullishOr(byKind.get(kind)) }))
}

export const layer = layerOf(all)
