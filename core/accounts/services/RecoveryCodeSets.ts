/**
 * The second factor's recovery codes between their text and the `SecondFactorStore`: a new set
 * from `SecureRandom`, stored as digests, a typed code used up, and the questions the account
 * pages ask. A digest is the SHA-256 of `recovery:<org>:<user>:<code>` (docs/decisions.md,
 * "Recovery codes"): bound to its user, so that it matches nobody else's code. Policy (who may
 * make a set, what a use is worth) is `SecondFactors.ts`'s. Depends on effect and the core alone.
 */
import { Effect, Option } from "effect"
import type { Digest, SecureRandom } from "effect/crypto"
import { Digest as Digests } from "effect/crypto"
import { Base64Url } from "effect/encoding"
import type { OrgId, UserId } from "../../shared/domain/Ids.ts"
import * as RecoveryCodes from "../domain/RecoveryCodes.ts"
import type { SecondFactorStore } from "../ports/SecondFactorStore.ts"
import type { DashboardUser } from "../ports/UserStore.ts"

const utf8 = new TextEncoder()

export const make = (
  factors: SecondFactorStore["Service"],
  digest: Digest.Digest["Service"],
  random: SecureRandom.SecureRandom["Service"]
) => {
  const digestOf = (org: OrgId, id: UserId, canonical: string) =>
    digest.digest(Digests.sha256, utf8.encode(`recovery:${org.toLowerCase()}:${id.toLowerCase()}:${canonical}`))

  /** A new set in place of the user's old one, while their factor is on; none when it is off. */
  const replace = Effect.fnUntraced(function* (user: DashboardUser) {
    const codes = RecoveryCodes.codesFromBytes(yield* random.randomBytes(RecoveryCodes.bytesPerSet))
    const digests = yield* Effect.forEach(codes, (code) =>
      digestOf(user.orgId, user.id, RecoveryCodes.normalize(code)!)
    )
    return (yield* factors.replaceRecoveryCodes(user.orgId, user.id, digests)) ? Option.some(codes) : Option.none()
  })

  /** Uses up the user's code of that canonical form (`RecoveryCodes.normalize`): how many are left, if it was one. */
  const use = (org: OrgId, id: UserId, canonical: string) =>
    Effect.flatMap(digestOf(org, id, canonical), (digest) => factors.useRecoveryCode(org, id, digest))

  const left = (user: DashboardUser) =>
    Effect.map(factors.findRecoveryCodes(user.orgId, user.id), (digests) => digests.length)

  /** Whether every one of `codes` (at least one) is an unused code of the user's. */
  const areUnused = Effect.fnUntraced(function* (user: DashboardUser, codes: ReadonlyArray<string>) {
    const stored = new Set((yield* factors.findRecoveryCodes(user.orgId, user.id)).map(Base64Url.encode))
    for (const code of codes) {
      const canonical = RecoveryCodes.normalize(code)
      if (canonical === undefined) return false
      if (!stored.has(Base64Url.encode(yield* digestOf(user.orgId, user.id, canonical)))) return false
    }
    return codes.length > 0
  })

  return { replace, use, left, areUnused }
}
