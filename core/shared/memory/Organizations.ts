/**
 * `Organizations` in memory, over the memory world's `OrganizationsState`: the twin of the PostgreSQL table for
 * embedders and fast tests, held to the same contract (`test/contracts/Organizations.contract.ts`).
 * Ids are fresh UUIDs, found in any letter case as PostgreSQL's `uuid` type finds them. Depends on
 * `effect` and core only.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { SecureRandom } from "effect/crypto"
import type { OrgId } from "../domain/Ids.ts"
import type { RateLimitPolicy } from "../domain/RateLimit.ts"
import { type Organization, Organizations } from "../ports/Organizations.ts"
import { compareText, idKey } from "./Keys.ts"
import { OrganizationsState } from "./OrganizationsState.ts"

const byNameThenId = (a: Organization, b: Organization) => compareText(a.name, b.name) || compareText(a.id, b.id)

export const layerMemory: Layer.Layer<Organizations, never, OrganizationsState> = Layer.effect(
  Organizations,
  Effect.gen(function* () {
    const { organizations } = yield* OrganizationsState

    const create = Effect.fn("MemoryOrganizations.create")(function* (name: string) {
      // What the table's constraint refuses is a fault of the caller, not an outcome to handle.
      if (name === "") return yield* Effect.die(new Error("an organization's name must not be empty"))
      const organization: Organization = {
        id: SecureRandom.uuidV4Unsafe() as OrgId,
        name,
        createdAt: yield* DateTime.now,
        rateLimit: null
      }
      organizations.set(organization.id, organization)
      return organization
    })

    const list = Effect.sync(() => [...organizations.values()].sort(byNameThenId))

    const find = (id: OrgId) => Effect.sync(() => Option.fromNullishOr(organizations.get(idKey(id))))

    const setRateLimit = (id: OrgId, rateLimit: RateLimitPolicy | null) =>
      Effect.sync(() => {
        const found = organizations.get(idKey(id))
        if (found === undefined) return Option.none<Organization>()
        const changed = { ...found, rateLimit }
        organizations.set(changed.id, changed)
        return Option.some(changed)
      })

    return Organizations.of({ create, list, find, setRateLimit })
  })
)
