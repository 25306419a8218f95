/**
 * API keys as the dashboard offers them, over the `ApiKeys` service: a user sees the keys of
 * their own organization only; admins create and revoke them, members only read; a key of
 * another organization is "not found", as an unknown one is, and every change filters on the
 * organization in storage as well. Every change is recorded in the `DashboardAuditLog` with the
 * user who made it, before its result is shown. Depends on effect and the core alone.
 */
import { Context, DateTime, Effect, Layer, type Redacted, Schema } from "effect"
import type { Permission } from "../../access/domain/ApiKey.ts"
import { ApiKeyNotFound, type ApiKeyRecord, type LiveKeyLimitReached } from "../../access/ports/ApiKeyStore.ts"
import { ApiKeys } from "../../access/services/ApiKeys.ts"
import { Accounts, type Actor } from "../../accounts/services/Accounts.ts"

/** The user's role does not allow the action. */
export class NotPermitted extends Schema.TaggedError<NotPermitted>()("NotPermitted", {
  action: Schema.String
}) {}

export class KeyNameRejected extends Schema.TaggedError<KeyNameRejected>()("KeyNameRejected", {
  message: Schema.String
}) {}

/** A key's name: something to recognise it by, 1 to 100 characters once trimmed, none a control. */
export const keyNameProblem = (name: string): string | undefined => {
  const trimmed = name.trim()
  if (trimmed === "") return "a key needs a name"
  if (Array.from(trimmed).length > 100) return "a name has at most 100 characters"
  if (/\p{Cc}/u.test(trimmed)) return "a name has no control characters"
  return undefined
}

/** The order the dashboard lists keys in: the newest first (by creation, then id, for a stable order). */
export const newestFirst = (records: ReadonlyArray<ApiKeyRecord>): ReadonlyArray<ApiKeyRecord> =>
  [...records].sort(
    (a, b) =>
      DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) ||
      (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
  )

/** Names compared as a person reads them: trimmed, whatever their case. */
const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase()

/**
 * The organization's other active keys that carry the name of `key`: a second "billing" key is
 * allowed (a rotation needs two for a while), but the page that shows it says so.
 */
export const namesakes = (key: ApiKeyRecord, records: ReadonlyArray<ApiKeyRecord>) =>
  records.filter((other) => other.id !== key.id && other.revokedAt === null && sameName(other.name, key.name))

/** Key ids as the dashboard compares them: UUIDs, whatever the case they are written in. */
const sameId = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

export class KeyAdministration extends Context.Service<
  KeyAdministration,
  {
    readonly list: (actor: Actor) => Effect.Effect<ReadonlyArray<ApiKeyRecord>>
    /** One of the organization's keys, by id; undefined for another organization's or none. */
    readonly find: (actor: Actor, keyId: string) => Effect.Effect<ApiKeyRecord | undefined>
    /** A read-only key, unless given permissions (`webhooks`: it may manage webhook endpoints). */
    readonly create: (
      actor: Actor,
      name: string,
      permissions?: ReadonlyArray<Permission>
    ) => Effect.Effect<
      { readonly key: Redacted.Redacted<string>; readonly record: ApiKeyRecord },
      NotPermitted | KeyNameRejected | LiveKeyLimitReached
    >
    /** Revokes one of the organization's keys that is not revoked yet; any other is not found. */
    readonly revoke: (actor: Actor, keyId: string) => Effect.Effect<ApiKeyRecord, NotPermitted | ApiKeyNotFound>
  }
>()("core/KeyAdministration") {
  static readonly layer = Layer.effect(
    KeyAdministration,
    Effect.gen(function* () {
      const keys = yield* ApiKeys
      const access = yield* Accounts

      // The user's organization exists for as long as the user does: its absence is a fault.
      const list = (actor: Actor) =>
        keys
          .list(actor.user.orgId)
          .pipe(Effect.map(newestFirst), Effect.orDie, Effect.withSpan("KeyAdministration.list"))

      const find = (actor: Actor, keyId: string) =>
        Effect.map(list(actor), (records) => records.find((record) => sameId(record.id, keyId)))

      const requireAdmin = (actor: Actor, action: string) =>
        actor.user.role === "admin" ? Effect.void : Effect.fail(new NotPermitted({ action }))

      // The key is made first, since its audit entry names its id, but it is shown only once
      // that entry is committed; if the entry cannot be written, the key is revoked unseen. A key
      // whose secret nobody was ever shown cannot be used, so no usable key goes unaudited.
      const create = Effect.fn("KeyAdministration.create")(function* (
        actor: Actor,
        name: string,
        permissions: ReadonlyArray<Permission> = []
      ) {
        yield* requireAdmin(actor, "create keys")
        const problem = keyNameProblem(name)
        if (problem !== undefined) return yield* new KeyNameRejected({ message: problem })
        // The user's organization exists for as long as the user does; its key limit may be reached.
        const created = yield* keys
          .create(actor.user.orgId, name.trim(), permissions)
          .pipe(Effect.catchTag("OrganizationNotFound", Effect.die))
        yield* access
          .record(actor, "key_created", created.record.id)
          .pipe(Effect.onError(() => Effect.ignore(keys.revokeActive(actor.user.orgId, created.record.id))))
        return created
      })

      // The audit entry is written first, then the key revoked: a revocation is never without its
      // entry. Only a key found active is recorded, so revoking a revoked key records nothing.
      const revoke = Effect.fn("KeyAdministration.revoke")(function* (actor: Actor, keyId: string) {
        yield* requireAdmin(actor, "revoke keys")
        const own = yield* find(actor, keyId)
        if (own === undefined || own.revokedAt !== null) return yield* new ApiKeyNotFound({ id: keyId })
        yield* access.record(actor, "key_revoked", own.id)
        return yield* keys.revokeActive(actor.user.orgId, own.id)
      })

      return KeyAdministration.of({ list, find, create, revoke })
    })
  )
}
