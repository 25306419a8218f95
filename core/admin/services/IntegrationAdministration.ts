/**
 * The organization's vendor-debtor pairs as the dashboard offers them: the list the API shows
 * (`Receivables.integrations`), a pair's recent runs (`Directory`), and pausing or resuming a
 * pair, for admins only. A pair of another organization is "not found", as an unknown one is:
 * every lookup starts from the user's own organization's pairs. Each pause or resume is recorded
 * in the `DashboardAuditLog` with its user before it takes effect. Depends on effect and the
 * core alone.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { Accounts, type Actor } from "../../accounts/services/Accounts.ts"
import type { Integration } from "../../receivables/domain/Resources.ts"
import type { SyncRunRecord } from "../../receivables/ports/DirectoryStore.ts"
import { Directory } from "../../receivables/services/Directory.ts"
import { Receivables } from "../../receivables/services/Receivables.ts"
import { NotPermitted } from "./KeyAdministration.ts"

/** No pair of the user's organization has the id. */
export class IntegrationNotFound extends Schema.TaggedError<IntegrationNotFound>()("IntegrationNotFound", {
  id: Schema.String
}) {}

export interface IntegrationDetail {
  readonly integration: Integration
  /** The newest runs, newest first, the unfinished one included. */
  readonly runs: ReadonlyArray<SyncRunRecord>
}

export class IntegrationAdministration extends Context.Service<
  IntegrationAdministration,
  {
    /** The organization's pairs, by vendor name, debtor name, then id. */
    readonly list: (actor: Actor) => Effect.Effect<ReadonlyArray<Integration>>
    readonly show: (actor: Actor, id: string) => Effect.Effect<IntegrationDetail, IntegrationNotFound>
    readonly setPaused: (
      actor: Actor,
      id: string,
      paused: boolean
    ) => Effect.Effect<Integration, NotPermitted | IntegrationNotFound>
  }
>()("core/IntegrationAdministration") {
  static readonly layer = Layer.effect(
    IntegrationAdministration,
    Effect.gen(function* () {
      const receivables = yield* Receivables
      const directory = yield* Directory
      const access = yield* Accounts

      const list = (actor: Actor) =>
        receivables.integrations(actor.user.orgId, {}).pipe(Effect.withSpan("IntegrationAdministration.list"))

      // Ids are UUIDs: compared whatever their case.
      const own = Effect.fnUntraced(function* (actor: Actor, id: string) {
        const found = (yield* list(actor)).find((integration) => integration.id === id.toLowerCase())
        if (found === undefined) return yield* new IntegrationNotFound({ id })
        return found
      })

      // The directory's refusal can only mean the pair went away since it was listed.
      const gone = (id: string) => Effect.mapError(() => new IntegrationNotFound({ id }))

      const show = Effect.fn("IntegrationAdministration.show")(function* (actor: Actor, id: string) {
        const integration = yield* own(actor, id)
        const { runs } = yield* directory.showIntegration(integration.id).pipe(gone(id))
        return { integration, runs }
      })

      const setPaused = Effect.fn("IntegrationAdministration.setPaused")(function* (
        actor: Actor,
        id: string,
        paused: boolean
      ) {
        if (actor.user.role !== "admin") {
          return yield* new NotPermitted({ action: paused ? "pause pairs" : "resume pairs" })
        }
        const integration = yield* own(actor, id)
        yield* access.record(actor, paused ? "integration_paused" : "integration_resumed", integration.id)
        yield* directory.setPaused(integration.id, paused).pipe(gone(id))
        return yield* own(actor, id)
      })

      return IntegrationAdministration.of({ list, show, setPaused })
    })
  )
}
