/**
 * Secrets a dashboard page shows once (a new key, an invite link, an endpoint's secret, recovery
 * codes), held on the server between the form's answer and the page its redirect leads to: stored
 * sealed, under the SHA-256 of a handle only the browser holds, for one organization, and taken
 * once. The browser carries the handle, never the secret.
 */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { OrgId } from "../../shared/domain/Ids.ts"

export interface HeldSecret {
  readonly handleHash: Uint8Array
  /** Which page it is for, so that a handle cannot show one page's secret on another. */
  readonly kind: string
  readonly orgId: OrgId
  /** The secret as the sealing box wrote it. */
  readonly sealed: string
  readonly expiresAt: DateTime.Utc
}

export class ShownOnceStore extends Context.Service<
  ShownOnceStore,
  {
    /** Holds the secret until it is taken or expires; what has expired by `now` goes meanwhile. */
    readonly hold: (held: HeldSecret, now: DateTime.Utc) => Effect.Effect<void>
    /**
     * The sealed secret under that handle, of that kind and organization, unexpired at `now`: gone
     * afterwards, so that a second look (a reload, a copied cookie) finds nothing. What has expired
     * by `now` goes too.
     */
    readonly take: (
      handleHash: Uint8Array,
      kind: string,
      orgId: OrgId,
      now: DateTime.Utc
    ) => Effect.Effect<Option.Option<string>>
  }
>()("core/ShownOnceStore") {}
