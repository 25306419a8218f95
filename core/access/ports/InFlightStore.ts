/**
 * Where requests in flight are counted, per key and per organization (all its keys together): an
 * admission takes a place under both caps or is refused naming the cap it met, and gives its
 * place back when released. A store shared by several processes makes the caps hold across them;
 * the memory twin counts in one process. An admission is interruptible only where it waits (on a
 * shared store), never once it has taken a place: its caller runs it uninterruptibly, so that a
 * place taken always reaches it and is given back. Depends on `effect` alone.
 */
import { Context, type Effect, Schema } from "effect"

export interface InFlightCaps {
  readonly perKey: number
  readonly perOrganization: number
}

/** Whose request it is: a key and the organization it belongs to. */
export interface InFlightOwner {
  readonly keyId: string
  readonly orgId: string
}

export type InFlightAdmission =
  | {
      readonly _tag: "Admitted"
      /** Gives the place back; called once, when the request is done however it ended. */
      readonly release: Effect.Effect<void>
    }
  | { readonly _tag: "Refused"; readonly scope: "key" | "organization" }

/** The store could not be asked (a shared store that is unreachable); the caller decides what then. */
export class InFlightStoreUnavailable extends Schema.TaggedError<InFlightStoreUnavailable>()(
  "InFlightStoreUnavailable",
  { message: Schema.String }
) {}

export class InFlightStore extends Context.Service<
  InFlightStore,
  {
    readonly admit: (
      owner: InFlightOwner,
      caps: InFlightCaps
    ) => Effect.Effect<InFlightAdmission, InFlightStoreUnavailable>
  }
>()("core/InFlightStore") {}
