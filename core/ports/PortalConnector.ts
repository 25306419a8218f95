/**
 * A debtor portal, as the sync engine sees it: for one vendor-debtor pair, the documents the
 * portal reports now. Connectors live in `adapters/portals/`; each has a kind, its own status
 * wording (applied before the default table) and a default sync interval. Failures say whether a
 * retry may help.
 */
import { Context, type DateTime, type Duration, type Option, Schema, type Stream } from "effect"
import type { DebtorId, IntegrationId, OrgId, VendorId } from "../domain/Ids.ts"
import type { FetchedDocument } from "../domain/PairSync.ts"
import type { StatusMapping } from "../domain/Status.ts"

/** What a connector is told about the pair it fetches. */
export interface PairToFetch {
  readonly integrationId: IntegrationId
  readonly orgId: OrgId
  readonly vendorId: VendorId
  readonly debtorId: DebtorId
  /** The integration's connector configuration, as stored. */
  readonly config: unknown
  /** The time of this sync; simulated portals evolve with it. */
  readonly now: DateTime.Utc
}

export class ConnectorFailed extends Schema.TaggedError<ConnectorFailed>()("ConnectorFailed", {
  message: Schema.String,
  /** Whether trying again later may succeed (timeouts, 5xx, 429) or not (bad credentials, bad config). */
  retryable: Schema.Boolean
}) {}

export interface PortalConnector {
  readonly kind: string
  /** The configuration an integration of this kind must have; checked when it is created. */
  readonly configSchema: Schema.Top
  readonly statusMapping: StatusMapping
  readonly defaultInterval: Duration.Duration
  readonly fetch: (pair: PairToFetch) => Stream.Stream<FetchedDocument, ConnectorFailed>
}

/** The connectors this process knows, by kind. */
export class PortalConnectors extends Context.Service<
  PortalConnectors,
  { readonly get: (kind: string) => Option.Option<PortalConnector> }
>()("core/PortalConnectors") {}
