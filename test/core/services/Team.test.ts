/**
 * The rule every team change keeps, as the stores apply it: whatever changes are asked in whatever
 * order, an organization that has an admin keeps one, and a change is refused only where it would
 * take that last admin away.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import { type TeamMember, takesLastAdmin } from "../../../core/accounts/ports/UserStore.ts"
import type { OrgId, UserId } from "../../../core/shared/domain/Ids.ts"

const epoch = DateTime.makeUnsafe(0)

const member = (index: number, role: "admin" | "member"): TeamMember => ({
  id: `user-${index}` as UserId,
  orgId: "org" as OrgId,
  email: `user-${index}@example.com`,
  role,
  createdAt: epoch,
  removedAt: null,
  secondFactor: false
})

const adminsOf = (members: ReadonlyArray<TeamMember>) =>
  members.filter((one) => one.removedAt === null && one.role === "admin").length

const change = fc.record({
  target: fc.nat({ max: 5 }),
  becomes: fc.constantFrom("admin" as const, "member" as const, "removed" as const)
})

describe("takesLastAdmin", () => {
  it("an organization with an admin keeps one through any sequence of changes", () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
        fc.array(change, { maxLength: 30 }),
        (roles, changes) => {
          let members = roles.map((admin, index) => member(index, admin ? "admin" : "member"))
          const hadAdmin = adminsOf(members) > 0
          for (const { target, becomes } of changes) {
            const found = members.find((one) => one.id === `user-${target}` && one.removedAt === null)
            if (found === undefined) continue
            const next = members.map((one) =>
              one.id !== found.id
                ? one
                : becomes === "removed"
                  ? { ...one, removedAt: epoch }
                  : { ...one, role: becomes }
            )
            const refused = takesLastAdmin(members, found.id, becomes)
            assert.strictEqual(
              refused,
              adminsOf(members) > 0 && adminsOf(next) === 0,
              "refused exactly when it empties"
            )
            if (!refused) members = next
            if (hadAdmin) assert.isAbove(adminsOf(members), 0)
          }
        }
      )
    )
  })
})
