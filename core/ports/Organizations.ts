/** The organizations that own keys, vendors and receivables; managed by operators. */
import { Context, type DateTime, type Effect } from "effect"
import type { OrgId } from "../domain/Ids.ts"

export interface Organization {
  readonly id: OrgId
  readonly name: string
  readonly createdAt: DateTime.Utc
}

export class Organizations extends Context.Service<
  Organizations,
  {
    readonly create: (name: string) => Effect.Effect<Organization>
    readonly list: Effect.Effect<ReadonlyArray<Organization>>
  }
>()("core/Organizations") {}
