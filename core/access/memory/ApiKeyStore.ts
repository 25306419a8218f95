/**
 * `ApiKeyStore` in memory, over the memory world's `AccessState`, for embedders and fast tests; it passes
 * the same contract as the PostgreSQL store (`test/contracts/ApiKeyStore.contract.ts`). Keys
 * belong to the state's organizations; revocations are announced to every subscriber of the
 * state as they happen. A key's last use is moved by its usage (`KeyUsageStore.ts`). Depends on
 * effect and the core.
 */
import { DateTime, Effect, Layer, Option, PubSub, Stream } from "effect"
import { SecureRandom } from "effect/crypto"
import { Hex } from "effect/encoding"
import type { ApiKeyId, OrgId } from "../../shared/domain/Ids.ts"
import { idKey } from "../../shared/memory/Keys.ts"
import { OrganizationsState } from "../../shared/memory/OrganizationsState.ts"
import {
  ApiKeyNotFound,
  type ApiKeyRecord,
  ApiKeyStore,
  LiveKeyLimitReached,
  type NewApiKey,
  OrganizationNotFound
} from "../ports/ApiKeyStore.ts"
import { AccessState } from "./AccessState.ts"

const byCreation = (a: ApiKeyRecord, b: ApiKeyRecord) =>
  DateTime.toEpochMillis(a.createdAt) - DateTime.toEpochMillis(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

export const layerMemory: Layer.Layer<ApiKeyStore, never, AccessState | OrganizationsState> = Layer.effect(
  ApiKeyStore,
  Effect.gen(function* () {
    const tables = yield* AccessState
    const { organizations } = yield* OrganizationsState
    const { apiKeys: records, apiKeyDigests: idsByHash, revocations: announcements } = tables

    const requireOrg = Effect.fnUntraced(function* (org: string) {
      const found = organizations.get(idKey(org))
      if (found === undefined) return yield* new OrganizationNotFound({ id: org })
      return found.id
    })

    const findRecord = (id: string) => Option.fromNullishOr(records.get(idKey(id)))

    const findByHash = (hash: Uint8Array) =>
      Effect.sync(() =>
        Option.map(findRecord(idsByHash.get(Hex.encode(hash)) ?? ""), (record) => ({
          id: record.id,
          orgId: record.orgId,
          revokedAt: record.revokedAt,
          orgRateLimit: organizations.get(record.orgId)?.rateLimit ?? null,
          permissions: record.permissions
        }))
      )

    const insert = Effect.fn("MemoryApiKeyStore.insert")(function* (key: NewApiKey) {
      const orgId: OrgId = yield* requireOrg(key.orgId)
      const digest = Hex.encode(key.hash)
      // What the table's constraints refuse: faults of the caller, not outcomes to handle.
      if (key.hash.length !== 32) return yield* Effect.die(new RangeError("a key's digest is 32 bytes"))
      if (idsByHash.has(digest)) return yield* Effect.die(new Error("a key with this digest is already stored"))
      const createdAt = yield* DateTime.now
      // Counted and stored in one synchronous step, so no other creation comes between them.
      const live = Array.from(records.values()).filter((r) => r.orgId === orgId && r.revokedAt === null).length
      if (key.maxLive !== undefined && live >= key.maxLive) {
        return yield* new LiveKeyLimitReached({ orgId, limit: key.maxLive })
      }
      const record: ApiKeyRecord = {
        id: SecureRandom.uuidV4Unsafe() as ApiKeyId,
        orgId,
        name: key.name,
        displayStart: key.displayStart,
        permissions: [...new Set(key.permissions ?? [])].sort(),
        createdAt,
        revokedAt: null,
        lastUsedAt: null
      }
      records.set(record.id, record)
      idsByHash.set(digest, record.id)
      return record
    })

    const listByOrg = Effect.fn("MemoryApiKeyStore.listByOrg")(function* (org: string) {
      const orgId = yield* requireOrg(org)
      return Array.from(records.values())
        .filter((record) => record.orgId === orgId)
        .sort(byCreation)
    })

    const revoke = Effect.fn("MemoryApiKeyStore.revoke")(function* (id: string) {
      const found = findRecord(id)
      if (Option.isNone(found)) return yield* new ApiKeyNotFound({ id })
      const record = { ...found.value, revokedAt: found.value.revokedAt ?? (yield* DateTime.now) }
      records.set(record.id, record)
      // Announced on every revocation, as the database's trigger does.
      yield* PubSub.publish(announcements, record.id)
      return record
    })

    const revokeActive = Effect.fn("MemoryApiKeyStore.revokeActive")(function* (org: OrgId, id: string) {
      const found = findRecord(id)
      if (Option.isNone(found) || found.value.orgId !== idKey(org) || found.value.revokedAt !== null) {
        return yield* new ApiKeyNotFound({ id })
      }
      const record = { ...found.value, revokedAt: yield* DateTime.now }
      records.set(record.id, record)
      yield* PubSub.publish(announcements, record.id)
      return record
    })

    const find = (id: string) => Effect.sync(() => findRecord(id))

    const revocations = Effect.map(PubSub.subscribe(announcements), Stream.fromSubscription)

    return ApiKeyStore.of({ findByHash, insert, listByOrg, revoke, revokeActive, find, revocations })
  })
)
