/**
 * The organizations table of the memory world: the one table every context's twins read (a key,
 * an invite or a pair belongs to an organization that must exist). Its own state service so that
 * no context owns another's rows. Depends on `effect` and core only.
 */
import { Context, Effect, Layer } from "effect"
import type { Organization } from "../ports/Organizations.ts"

export interface OrganizationTables {
  readonly organizations: Map<string, Organization>
}

export class OrganizationsState extends Context.Service<OrganizationsState, OrganizationTables>()(
  "core/shared/memory/OrganizationsState"
) {
  /** A fresh, empty state each time the layer is built. */
  static readonly layer: Layer.Layer<OrganizationsState> = Layer.effect(
    OrganizationsState,
    Effect.sync(() => OrganizationsState.of({ organizations: new Map() }))
  )
}
