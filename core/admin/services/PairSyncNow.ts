/**
 * "Sync now" from the dashboard: an admin's sync of one of their organization's pairs, through
 * `ManualSync`, so limited exactly as the command line's is (`MANUAL_SYNC_MIN_SECONDS` since the
 * pair's last run, and the portal's `Retry-After`); its refusal says why and until when. The pair
 * is looked up among the user's own organization's pairs first, and the request is recorded in
 * the `DashboardAuditLog` with its user before it runs. Depends on effect and the core alone.
 */
import { Context, Effect, Layer } from "effect"
import { Accounts, type Actor } from "../../accounts/services/Accounts.ts"
import type { DirectoryRefused } from "../../receivables/services/Directory.ts"
import { ManualSync } from "../../receivables/services/ManualSync.ts"
import type { RunOutcome } from "../../receivables/services/SyncEngine.ts"
import { IntegrationAdministration, type IntegrationNotFound } from "./IntegrationAdministration.ts"
import { NotPermitted } from "./KeyAdministration.ts"

export class PairSyncNow extends Context.Service<
  PairSyncNow,
  {
    readonly syncNow: (
      actor: Actor,
      id: string
    ) => Effect.Effect<RunOutcome, NotPermitted | IntegrationNotFound | DirectoryRefused>
  }
>()("core/PairSyncNow") {
  static readonly layer = Layer.effect(
    PairSyncNow,
    Effect.gen(function* () {
      const administration = yield* IntegrationAdministration
      const access = yield* Accounts
      const manual = yield* ManualSync

      const syncNow = Effect.fn("PairSyncNow.syncNow")(function* (actor: Actor, id: string) {
        if (actor.user.role !== "admin") return yield* new NotPermitted({ action: "sync pairs" })
        const { integration } = yield* administration.show(actor, id)
        yield* access.record(actor, "integration_sync_requested", integration.id)
        return yield* manual.syncNow(integration.id, `dashboard:${actor.user.id}`)
      })

      return PairSyncNow.of({ syncNow })
    })
  )
}
