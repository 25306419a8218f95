/**
 * The directory's rules, over the `DirectoryStore` and `Organizations` storage ports: what an
 * operator may create (a named vendor of an existing organization, an integration of an existing
 * vendor and debtor whose configuration its connector accepts, within the interval and deadline
 * bounds) and the refusals that say what is wrong. Ids are checked for their form here, so a
 * mistyped id is "no such ...", and no store ever sees one. Depends on `effect` and core only.
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Result, Schema } from "effect"
import { DebtorId, OrgId, PairId, VendorId } from "../../shared/domain/Ids.ts"
import type { RateLimitPolicy } from "../../shared/domain/RateLimit.ts"
import { type Organization, Organizations } from "../../shared/ports/Organizations.ts"
import {
  type DebtorRecord,
  DirectoryStore,
  type IntegrationRecord,
  type SyncRunRecord,
  type VendorRecord
} from "../ports/DirectoryStore.ts"
import { PortalConnectors, validateConfig } from "../ports/PortalConnector.ts"
import { isDeadline, maxDeadline, minDeadline } from "./SyncEngine.ts"

/** What an operator gives to create an integration; ids as typed, checked here. */
export interface NewIntegration {
  readonly org: string
  readonly vendor: string
  readonly debtor: string
  readonly connector: string
  readonly config: unknown
  /** How often to sync; the connector's default interval when not given. */
  readonly interval?: Duration.Duration | undefined
  /** The overall deadline of the pair's syncs; the engine's default when not given. */
  readonly deadline?: Duration.Duration | undefined
}

/** Something an operator named does not exist, or cannot be done; the message says which. */
export class DirectoryRefused extends Schema.TaggedError<DirectoryRefused>()("DirectoryRefused", {
  message: Schema.String,
  /**
   * Why a manual sync must wait, and until when, for a page to say in its reader's terms (the
   * message names the setting and the instant, for an operator's terminal): a recent run
   * (`recent`), another request's sync in progress (`busy`), or the portal's Retry-After (`portal`).
   */
  wait: Schema.optional(
    Schema.Struct({ reason: Schema.Literals(["recent", "busy", "portal"]), until: Schema.optional(Schema.DateTimeUtc) })
  )
}) {}

/** The shortest interval between two syncs of a pair. */
export const minInterval = Duration.minutes(1)

/** How many of a pair's sync runs `showIntegration` shows. */
export const runsShown = 10

const refuse = (message: string) => new DirectoryRefused({ message })

/** The id if the text has the form of one; a malformed id names nothing, like an unknown one. */
const idOf =
  <S extends Schema.Codec<unknown, string>>(schema: S) =>
  (text: string): Option.Option<S["Type"]> =>
    Schema.is(schema)(text) ? Option.some(text) : Option.none()
const orgIdOf = idOf(OrgId)
const vendorIdOf = idOf(VendorId)
const debtorIdOf = idOf(DebtorId)
const integrationIdOf = idOf(PairId)

const deadlineBounds = `the deadline must be between ${Duration.format(minDeadline)} and ${Duration.format(maxDeadline)}`

export class Directory extends Context.Service<
  Directory,
  {
    readonly createVendor: (org: string, name: string) => Effect.Effect<VendorRecord, DirectoryRefused>
    readonly listVendors: (org: string) => Effect.Effect<ReadonlyArray<VendorRecord>, DirectoryRefused>
    readonly createDebtor: (name: string) => Effect.Effect<DebtorRecord, DirectoryRefused>
    readonly listDebtors: Effect.Effect<ReadonlyArray<DebtorRecord>>
    readonly createIntegration: (input: NewIntegration) => Effect.Effect<IntegrationRecord, DirectoryRefused>
    readonly listIntegrations: (org: string) => Effect.Effect<ReadonlyArray<IntegrationRecord>, DirectoryRefused>
    readonly showIntegration: (
      id: string
    ) => Effect.Effect<
      { readonly integration: IntegrationRecord; readonly runs: ReadonlyArray<SyncRunRecord> },
      DirectoryRefused
    >
    readonly setPaused: (id: string, paused: boolean) => Effect.Effect<IntegrationRecord, DirectoryRefused>
    /** Sets the organization's own rate limit (all its keys together), or with null its default. */
    readonly setOrganizationRateLimit: (
      org: string,
      limit: RateLimitPolicy | null
    ) => Effect.Effect<Organization, DirectoryRefused>
  }
>()("core/Directory") {
  static readonly layer = Layer.effect(
    Directory,
    Effect.gen(function* () {
      const store = yield* DirectoryStore
      const organizations = yield* Organizations
      const connectors = yield* PortalConnectors

      const requireOrg = Effect.fnUntraced(function* (org: string) {
        const id = orgIdOf(org)
        const found = Option.isSome(id) ? yield* organizations.find(id.value) : Option.none()
        if (Option.isNone(found)) return yield* refuse(`no organization with id "${org}"`)
        return found.value.id
      })

      const requireIntegration = Effect.fnUntraced(function* (id: string) {
        const parsed = integrationIdOf(id)
        const found = Option.isSome(parsed) ? yield* store.findIntegration(parsed.value) : Option.none()
        if (Option.isNone(found)) return yield* refuse(`no integration with id "${id}"`)
        return found.value
      })

      const named = (name: string) =>
        name.trim().length === 0 ? Effect.fail(refuse("a name must not be empty")) : Effect.succeed(name.trim())

      const createVendor = Effect.fn("Directory.createVendor")(function* (org: string, name: string) {
        const orgId = yield* requireOrg(org)
        return yield* store.insertVendor(orgId, yield* named(name))
      })

      const listVendors = Effect.fn("Directory.listVendors")(function* (org: string) {
        return yield* store.listVendors(yield* requireOrg(org))
      })

      const createDebtor = Effect.fn("Directory.createDebtor")(function* (name: string) {
        return yield* store.insertDebtor(yield* named(name))
      })

      const createIntegration = Effect.fn("Directory.createIntegration")(function* (input: NewIntegration) {
        const org = yield* requireOrg(input.org)
        const vendor = vendorIdOf(input.vendor)
        if (Option.isNone(vendor) || Option.isNone(yield* store.findVendor(org, vendor.value))) {
          return yield* refuse(`no vendor with id "${input.vendor}" in organization ${input.org}`)
        }
        const debtor = debtorIdOf(input.debtor)
        if (Option.isNone(debtor) || Option.isNone(yield* store.findDebtor(debtor.value))) {
          return yield* refuse(`no debtor with id "${input.debtor}"`)
        }
        const connector = connectors.get(input.connector)
        if (Option.isNone(connector)) return yield* refuse(`no connector of kind "${input.connector}"`)
        const refusal = validateConfig(connector.value, input.config)
        if (Result.isFailure(refusal)) {
          const { field, message } = refusal.failure
          return yield* refuse(
            `invalid ${input.connector} configuration${field === "" ? "" : ` at "${field}"`}: ${message}`
          )
        }
        const interval = input.interval ?? connector.value.defaultInterval
        if (Duration.isLessThan(interval, minInterval)) return yield* refuse("the interval must be at least one minute")
        const deadline = input.deadline ?? null
        if (deadline !== null && !isDeadline(deadline)) return yield* refuse(deadlineBounds)
        // A new pair is due at once: its first sync fills it.
        const created = yield* store.insertIntegration({
          org,
          vendor: vendor.value,
          debtor: debtor.value,
          connector: input.connector,
          config: input.config,
          interval,
          deadline,
          nextSyncAt: yield* DateTime.now
        })
        if (Option.isNone(created)) return yield* refuse("this vendor and debtor already have an integration")
        return created.value
      })

      const listIntegrations = Effect.fn("Directory.listIntegrations")(function* (org: string) {
        return yield* store.listIntegrations(yield* requireOrg(org))
      })

      const showIntegration = Effect.fn("Directory.showIntegration")(function* (id: string) {
        const integration = yield* requireIntegration(id)
        const runs = yield* store.recentRuns(integration.orgId, integration.id, runsShown)
        return { integration, runs }
      })

      const setPaused = Effect.fn("Directory.setPaused")(function* (id: string, paused: boolean) {
        const integration = yield* requireIntegration(id)
        const changed = yield* store.setPaused(integration.id, paused, yield* DateTime.now)
        if (Option.isNone(changed)) return yield* refuse(`no integration with id "${id}"`)
        return changed.value
      })

      const setOrganizationRateLimit = Effect.fn("Directory.setOrganizationRateLimit")(function* (
        org: string,
        limit: RateLimitPolicy | null
      ) {
        const orgId = yield* requireOrg(org)
        if (limit !== null && !(Number.isFinite(limit.perSecond) && limit.perSecond > 0)) {
          return yield* refuse("the rate per second must be a number above 0")
        }
        if (limit !== null && !(Number.isSafeInteger(limit.burst) && limit.burst >= 1)) {
          return yield* refuse("the burst must be a whole number, 1 or more")
        }
        const changed = yield* organizations.setRateLimit(orgId, limit)
        if (Option.isNone(changed)) return yield* refuse(`no organization with id "${org}"`)
        return changed.value
      })

      return Directory.of({
        createVendor,
        listVendors,
        createDebtor,
        listDebtors: store.listDebtors.pipe(Effect.withSpan("Directory.listDebtors")),
        createIntegration,
        listIntegrations,
        showIntegration,
        setPaused,
        setOrganizationRateLimit
      })
    })
  )
}
