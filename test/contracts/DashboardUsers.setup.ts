/**
 * What the dashboard's contract suites share: an organization, and a user in it made the only way
 * a user is made, by redeeming an invite. Digests are random bytes, as good as a token's SHA-256.
 */
import { randomBytes } from "node:crypto"
import { DateTime, Duration, Effect, Option } from "effect"
import type { Role } from "../../core/accounts/domain/Dashboard.ts"
import { UserStore } from "../../core/accounts/ports/UserStore.ts"
import { Organizations } from "../../core/shared/ports/Organizations.ts"

export const digest = () => new Uint8Array(randomBytes(32))

let counter = 0
export const freshEmail = () => `user-${Date.now()}-${counter++}-${randomBytes(4).toString("hex")}@example.com`

export const newOrg = Effect.flatMap(Effect.service(Organizations), (orgs) => orgs.create("Contract Org"))

/** A user of `orgId` (a new organization by default), with the given password hash. */
export const newUser = (
  options: { readonly orgId?: string; readonly role?: Role; readonly passwordHash?: string } = {}
) =>
  Effect.gen(function* () {
    const store = yield* UserStore
    const orgId = options.orgId ?? (yield* newOrg).id
    const tokenHash = digest()
    const now = yield* DateTime.now
    yield* store.createInvite({
      orgId,
      email: freshEmail(),
      role: options.role ?? "admin",
      tokenHash,
      expiresAt: DateTime.addDuration(now, Duration.hours(1))
    })
    const user = yield* store.redeemInvite(tokenHash, options.passwordHash ?? "scrypt$hash", now)
    return Option.getOrThrow(user)
  }).pipe(Effect.orDie)
