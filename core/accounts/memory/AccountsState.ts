/**
 * The accounts context's tables in the memory world: users and invites, second factors and
 * recovery codes, sign-in throttles and held sign-ins, sessions, secrets shown once, and the
 * organizations' action log, as the PostgreSQL schema keeps them. Depends on `effect` and core
 * only.
 */
import { Context, type DateTime, Effect, Layer, type Redacted } from "effect"
import type { DashboardAuditEntry } from "../ports/DashboardAuditLog.ts"
import type { SecondFactor } from "../ports/SecondFactorStore.ts"
import type { EndReason, Session } from "../ports/SessionStore.ts"
import type { HeldSecret } from "../ports/ShownOnceStore.ts"
import type { Credentials, Invite } from "../ports/UserStore.ts"

export interface HeldSignIn {
  readonly userKey: string
  readonly expiresAt: DateTime.Utc
}

export interface AccountTables {
  /** Invites by the hex of their token's digest. */
  readonly invites: Map<string, Invite>
  /** Users with their password hash, by e-mail address (one user per address). */
  readonly users: Map<string, Credentials>
  /** By `rowKey(org, user)`. */
  readonly secondFactors: Map<string, SecondFactor>
  /** Removed users' removal, by `rowKey(org, user)`; the user stays in `users`. */
  readonly removedUsers: Map<string, DateTime.Utc>
  /** Second-factor secrets proposed and not yet confirmed, by `rowKey(org, user)`. */
  readonly pendingSecrets: Map<string, Redacted.Redacted<string>>
  /** Unused recovery codes' digests, by their hex, by `rowKey(org, user)`. */
  readonly recoveryCodes: Map<string, Map<string, Uint8Array>>
  /** By the hex of their token's digest. */
  readonly heldSignIns: Map<string, HeldSignIn>
  /**
   * Sign-in attempts' times (epoch milliseconds) by throttle (the policy's name), then by key, as
   * `sign_in_attempts` keeps them; a key's place in its map is the order of its latest write.
   */
  readonly signInAttempts: Map<string, Map<string, Array<number>>>
  /** The addresses that signed in to an account, by account, the most recent last. */
  readonly trustedAddresses: Map<string, Array<string>>
  /** By the hex of their token's digest. */
  readonly sessions: Map<string, Session>
  /** Why sessions were ended, by the hex of their token's digest. */
  readonly endedSessions: Map<string, { readonly reason: EndReason; readonly at: DateTime.Utc }>
  /** Secrets held for a page that shows them once, by the hex of their handle's digest. */
  readonly shownOnce: Map<string, HeldSecret>
  readonly dashboardAudit: Array<DashboardAuditEntry>
}

/** The organization's user of that id, removed or not. */
export const userOf = (tables: AccountTables, org: string, id: string) =>
  [...tables.users.values()].find(
    (entry) => entry.user.id === id.toLowerCase() && entry.user.orgId === org.toLowerCase()
  )

export class AccountsState extends Context.Service<AccountsState, AccountTables>()(
  "core/accounts/memory/AccountsState"
) {
  /** A fresh, empty state each time the layer is built. */
  static readonly layer: Layer.Layer<AccountsState> = Layer.effect(
    AccountsState,
    Effect.sync(() =>
      AccountsState.of({
        invites: new Map(),
        users: new Map(),
        secondFactors: new Map(),
        removedUsers: new Map(),
        pendingSecrets: new Map(),
        recoveryCodes: new Map(),
        heldSignIns: new Map(),
        signInAttempts: new Map(),
        trustedAddresses: new Map(),
        sessions: new Map(),
        endedSessions: new Map(),
        shownOnce: new Map(),
        dashboardAudit: []
      })
    )
  )
}
