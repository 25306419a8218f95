/**
 * What a dashboard user's second factor needs from storage: the secret proposed to them, the
 * factor once on with its last accepted step, its wrong codes and lock, its recovery codes
 * (digests, each used once), and the sign-ins held for a code (by the SHA-256 of their token).
 * Users themselves are `UserStore`'s. What a code, a lock's length or an expiry is, is policy
 * (`core/accounts/services/SecondFactors.ts`); implementations hold digests and secrets only.
 */
import { Context, type DateTime, type Effect, type Option, type Redacted } from "effect"
import type { OrgId, UserId } from "../../shared/domain/Ids.ts"
import type { DashboardUser } from "./UserStore.ts"

/** Sign-ins of one user that may wait for their code at once. */
export const maxHeldSignIns = 50

/** A wrong code entered after a right password: when, and from which client address. */
export interface WrongCode {
  readonly at: DateTime.Utc
  readonly clientAddress: string | null
}

/** A user's TOTP secret (base32), and the last time step a code of theirs was accepted for. */
export interface SecondFactor {
  readonly secret: Redacted.Redacted<string>
  readonly lastStep: number
  /** Wrong codes in a row since the last right one or the last lock (0 when it is turned on). */
  readonly wrongCodes: number
  /** Locks since the last right code (0 when it is turned on): each lasts longer than the one before. */
  readonly locks: number
  /** No code is accepted before this instant; null when it was never locked since turned on. */
  readonly lockedUntil: DateTime.Utc | null
  /** The latest wrong code since it was turned on, kept after a right one so that its owner sees it. */
  readonly lastWrongCode: WrongCode | null
}

/** What turning a factor on stores; the counts and the lock start afresh. */
export type NewSecondFactor = Pick<SecondFactor, "secret" | "lastStep">

export class SecondFactorStore extends Context.Service<
  SecondFactorStore,
  {
    /**
     * The secret proposed to the user for their second factor, kept until a code confirms it or
     * another replaces it; none when none is proposed.
     */
    readonly findPendingSecret: (org: OrgId, id: UserId) => Effect.Effect<Option.Option<Redacted.Redacted<string>>>
    readonly setPendingSecret: (org: OrgId, id: UserId, secret: Redacted.Redacted<string>) => Effect.Effect<void>
    readonly findSecondFactor: (org: OrgId, id: UserId) => Effect.Effect<Option.Option<SecondFactor>>
    /**
     * Turns the second factor on (with the step its confirming code used up), only where none is
     * on, in one step, clearing the pending secret: false when one already is (a second tab, or a
     * race), which is left as it is. With none, turns it off and deletes its recovery codes, in one
     * step.
     */
    readonly setSecondFactor: (org: OrgId, id: UserId, factor: NewSecondFactor | null) => Effect.Effect<boolean>
    /**
     * Records that a code of `step` was accepted, in one step and only if `step` is later than the
     * last accepted one: false when it is not (a replay, or a race with another use of it).
     */
    readonly useStep: (org: OrgId, id: UserId, step: number) => Effect.Effect<boolean>
    /**
     * Counts a wrong code against the user's factor and keeps it as the latest, in one step; with
     * `lockUntil`, also locks the factor until then, adds one to its locks and starts the count
     * again. A right code (`useStep`) starts the count and the locks again.
     */
    readonly countWrongCode: (
      org: OrgId,
      id: UserId,
      wrong: WrongCode,
      lockUntil: DateTime.Utc | null
    ) => Effect.Effect<void>
    /**
     * Voids the user's recovery codes and stores these (their digests, 32 bytes each) in one step,
     * only while their second factor is on: false, and nothing stored, when it is off (turned off
     * meanwhile, for instance).
     */
    readonly replaceRecoveryCodes: (
      org: OrgId,
      id: UserId,
      digests: ReadonlyArray<Uint8Array>
    ) => Effect.Effect<boolean>
    /** The digests of the user's unused recovery codes. */
    readonly findRecoveryCodes: (org: OrgId, id: UserId) => Effect.Effect<ReadonlyArray<Uint8Array>>
    /**
     * Uses up the user's unused recovery code of that digest, in one step, and starts the factor's
     * wrong codes and locks again as a right code does (`useStep`): how many are left after it.
     * None when there is no such code (unknown, or used before, also by a use racing this one).
     */
    readonly useRecoveryCode: (org: OrgId, id: UserId, digest: Uint8Array) => Effect.Effect<Option.Option<number>>
    /**
     * Holds a sign-in that waits for its code, by the SHA-256 of its token, until `expiresAt`,
     * beside the user's others: a newer one does not cancel an older one (someone who has the
     * password must not be able to cancel the owner's sign-in), though past `maxHeldSignIns`
     * unexpired ones the oldest goes.
     */
    readonly holdSignIn: (org: OrgId, id: UserId, tokenHash: Uint8Array, expiresAt: DateTime.Utc) => Effect.Effect<void>
    /** Takes the held sign-in of that token if it has not expired at `now`: it is gone afterwards. */
    readonly takeSignIn: (tokenHash: Uint8Array, now: DateTime.Utc) => Effect.Effect<Option.Option<DashboardUser>>
  }
>()("core/SecondFactorStore") {}
