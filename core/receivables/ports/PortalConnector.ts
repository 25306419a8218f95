/**
 * A debtor portal, as the sync engine sees it: for one vendor-debtor pair, the documents the
 * portal reports now, as a stream, so that a pair of any size syncs in bounded memory.
 * Connectors live in `adapters/portals/`; each has a kind, a configuration schema (checked when
 * an integration is created), its own status wording (applied before the default table) and a
 * default sync interval. Failures say whether a retry may help, and when.
 */
import {
  Context,
  type DateTime,
  type Duration,
  Effect,
  type Option,
  type Redacted,
  Result,
  Schema,
  SchemaIssue,
  type Stream
} from "effect"
import type { DebtorId, OrgId, PairId, VendorId } from "../../shared/domain/Ids.ts"
import type { SecretReference, SecretUnavailable } from "../../shared/ports/Secrets.ts"
import type { FetchedDocument } from "../domain/PairSync.ts"
import { makeStatusMapping, type StatusMapping, StatusWording } from "../domain/Status.ts"

export class ConnectorFailed extends Schema.TaggedError<ConnectorFailed>()("ConnectorFailed", {
  message: Schema.String,
  /** Whether trying again later may succeed (timeouts, 5xx, 429) or not (bad credentials, bad config). */
  retryable: Schema.Boolean,
  /** The portal's own word on when to come back (a 429's or 503's `Retry-After`), in seconds. */
  retryAfterSeconds: Schema.optionalKey(Schema.Number)
}) {}

/** A failure that retrying cannot mend before someone changes something (credentials, configuration, the portal's data). */
export const permanentFailure = (message: string) => new ConnectorFailed({ message, retryable: false })

/** A failure that may pass by itself (a timeout, an outage, a file still being written). */
export const retryableFailure = (message: string) => new ConnectorFailed({ message, retryable: true })

/** What a connector is told about the pair it fetches. */
export interface PairToFetch {
  readonly integrationId: PairId
  readonly orgId: OrgId
  readonly vendorId: VendorId
  readonly debtorId: DebtorId
  /** The integration's connector configuration, as validated by `configSchema` and stored. */
  readonly config: unknown
  /** The time of this sync; simulated portals evolve with it. */
  readonly now: DateTime.Utc
  /**
   * Reads a secret the configuration refers to. A missing secret fails the fetch as permanent,
   * with a message that names the reference, never a value.
   */
  readonly secret: (reference: SecretReference) => Effect.Effect<Redacted.Redacted<string>, ConnectorFailed>
  /**
   * Keeps `remember` (what a connector notes of the portal once a fetch is complete: an inbox's
   * files read) until the sync engine has applied this fetch, and runs it then; a sync that fails
   * before its apply commits never runs it, so the next one reads those files again. Absent when
   * a fetch runs on its own (the conformance kit, a test): see `whenApplied`.
   */
  readonly afterApply?: (remember: Effect.Effect<void>) => Effect.Effect<void>
}

/** `remember` once the engine has applied the fetch; at the fetch's end when no engine runs it. */
export const whenApplied = (pair: PairToFetch, remember: Effect.Effect<void>): Effect.Effect<void> =>
  pair.afterApply === undefined ? remember : pair.afterApply(remember)

export interface PortalConnector {
  readonly kind: string
  /** The configuration an integration of this kind must have; checked when it is created. */
  readonly configSchema: Schema.Top
  readonly statusMapping: StatusMapping
  /**
   * The integration's own wording, read from its configuration, for connectors whose
   * configuration may carry one (`statuses`): applied before `statusMapping`.
   */
  readonly statusMappingOf?: (config: unknown) => StatusMapping | undefined
  readonly defaultInterval: Duration.Duration
  readonly fetch: (pair: PairToFetch) => Stream.Stream<FetchedDocument, ConnectorFailed>
}

/** The connectors this process knows, by kind. */
export class PortalConnectors extends Context.Service<
  PortalConnectors,
  { readonly get: (kind: string) => Option.Option<PortalConnector> }
>()("core/PortalConnectors") {}

/** Why a configuration was refused: the field (a dotted path, empty for the whole) and what is wrong. */
export interface ConfigRefusal {
  readonly field: string
  readonly message: string
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Checks an integration's configuration against its connector's schema. Unknown fields are
 * refused too: a misspelt optional setting must not be silently ignored, and a secret pasted
 * beside its reference must not reach the database.
 */
export const validateConfig = (
  connector: Pick<PortalConnector, "configSchema">,
  config: unknown
): Result.Result<unknown, ConfigRefusal> => {
  const decoded = Schema.decodeUnknownExit(connector.configSchema as Schema.Codec<unknown, unknown>)(config, {
    onExcessProperty: "error"
  })
  if (decoded._tag === "Success") return Result.succeed(decoded.value)
  const failure = decoded.cause.reasons.find((reason) => reason._tag === "Fail")
  const issue =
    failure?._tag === "Fail" && Schema.isSchemaError(failure.error)
      ? formatIssues(failure.error.issue).issues[0]
      : undefined
  return Result.fail({
    field: issue?.path?.map(String).join(".") ?? "",
    message: issue?.message ?? "not readable"
  })
}

/**
 * The configuration a connector was given, decoded for its fetch. It was validated when the
 * integration was created; one that no longer fits (edited by hand, an older schema) fails the
 * run as permanent, naming the field.
 */
export const configOf = <A>(
  connector: { readonly kind: string; readonly configSchema: Schema.Codec<A, unknown> },
  config: unknown
): Effect.Effect<A, ConnectorFailed> =>
  Result.match(validateConfig(connector, config), {
    onFailure: (refusal) =>
      Effect.fail(
        permanentFailure(
          `the ${connector.kind} configuration is not valid${refusal.field === "" ? "" : ` at "${refusal.field}"`}: ${refusal.message}`
        )
      ),
    onSuccess: (value) => Effect.succeed(value as A)
  })

/** The `secret` a connector is given: a missing secret is a permanent failure that names the reference. */
export const secretReader =
  (resolve: (reference: SecretReference) => Effect.Effect<Redacted.Redacted<string>, SecretUnavailable>) =>
  (reference: SecretReference): Effect.Effect<Redacted.Redacted<string>, ConnectorFailed> =>
    Effect.mapError(resolve(reference), (unavailable) => permanentFailure(unavailable.message))

const decodeWording = Schema.decodeUnknownOption(Schema.Struct({ statuses: StatusWording }))

/**
 * The `statuses` of a configuration that may carry one, as a mapping: for connectors whose
 * portals' wording differs from one debtor to another (`file`, `http-json`).
 */
export const configuredStatusMapping = (config: unknown): StatusMapping | undefined => {
  const decoded = decodeWording(config)
  return decoded._tag === "Some" ? makeStatusMapping(decoded.value.statuses) : undefined
}
