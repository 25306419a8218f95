/**
 * `Organizations` in memory: the twin of the PostgreSQL table for embedders and fast tests, held
 * to the same contract (`test/contracts/Organizations.contract.ts`). Ids are fresh UUIDs, found in
 * any letter case as PostgreSQL's `uuid` type finds them. Depends on `effect` and core only.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import { SecureRandom } from "effect/crypto"
import type { OrgId } from "../domain/Ids.ts"
import { type Organization, Organizations } from "../ports/Organizations.ts"

/** Text in code point order, as PostgreSQL's C collation (the embedded server's) orders it. */
const compareText = (a: string, b: string): number => {
  const x = Array.from(a, (c) => c.codePointAt(0)!)
  const y = Array.from(b, (c) => c.codePointAt(0)!)
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!
  return x.length - y.length
}

const byNameThenId = (a: Organization, b: Organization) => compareText(a.name, b.name) || compareText(a.id, b.id)

export const layerMemory: Layer.Layer<Organizations> = Layer.sync(Organizations, () => {
  const all = new Map<string, Organization>()

  const create = Effect.fn("MemoryOrganizations.create")(function* (name: string) {
    // What the table's constraint refuses is a fault of the caller, not an outcome to handle.
    if (name === "") return yield* Effect.die(new Error("an organization's name must not be empty"))
    const organization: Organization = {
      id: SecureRandom.uuidV4Unsafe() as OrgId,
      name,
      createdAt: yield* DateTime.now
    }
    all.set(organization.id, organization)
    return organization
  })

  const list = Effect.sync(() => [...all.values()].sort(byNameThenId))

  const find = (id: OrgId) => Effect.sync(() => Option.fromNullishOr(all.get(id.toLowerCase())))

  return Organizations.of({ create, list, find })
})
