/**
 * Whether this process can serve: its storage answers and holds the data layout this build
 * expects. Asked by the `/ready` probe; an implementation answers promptly, never fails, and says
 * why when it is not ready.
 */
import { Context, type Effect } from "effect"

export type ReadinessState = { readonly ready: true } | { readonly ready: false; readonly reason: string }

export class Readiness extends Context.Service<Readiness, { readonly check: Effect.Effect<ReadinessState> }>()(
  "core/Readiness"
) {}
