/**
 * `ApiKeyStore` in memory, for embedders and fast tests; it passes the same contract as the
 * PostgreSQL store (`test/contracts/ApiKeyStore.contract.ts`). Keys belong to the organizations
 * that the `Organizations` port finds; revocations are announced to subscribers as they happen.
 * Nothing records requests here, so a key's usage has no days. Depends on effect and the core.
 */
import { DateTime, Effect, Layer, Option, PubSub, Schema, Stream } from "effect"
import { SecureRandom } from "effect/crypto"
import { Hex } from "effect/encoding"
import type { ApiKeyId, OrgId } from "../domain/Ids.ts"
import {
  ApiKeyNotFound,
  type ApiKeyRecord,
  ApiKeyStore,
  type NewApiKey,
  OrganizationNotFound
} from "../ports/ApiKeyStore.ts"
import { Organizations } from "../ports/Organizations.ts"

const isUuid = Schema.is(Schema.String.check(Schema.isUUID()))
// Ids are UUIDs, which compare without regard to case, as PostgreSQL's uuid type does.
const canonical = (id: string) => (isUuid(id) ? id.toLowerCase() : id)

const byCreation = (a: ApiKeyRecord, b: ApiKeyRecord) =>
  DateTime.toEpochMillis(a.createdAt) - DateTime.toEpochMillis(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

export const layerMemory = Layer.effect(
  ApiKeyStore,
  Effect.gen(function* () {
    const organizations = yield* Organizations
    const records = new Map<string, ApiKeyRecord>()
    const idsByHash = new Map<string, string>()
    const announcements = yield* PubSub.unbounded<string>()

    const requireOrg = Effect.fnUntraced(function* (org: string) {
      const found = yield* organizations.find(org as OrgId)
      if (Option.isNone(found)) return yield* new OrganizationNotFound({ id: org })
      return found.value.id
    })

    const findRecord = (id: string) => Option.fromNullishOr(records.get(canonical(id)))

    const findByHash = (hash: Uint8Array) =>
      Effect.sync(() =>
        Option.map(findRecord(idsByHash.get(Hex.encode(hash)) ?? ""), (record) => ({
          id: record.id,
          orgId: record.orgId,
          revokedAt: record.revokedAt
        }))
      )

    const insert = Effect.fn("MemoryApiKeyStore.insert")(function* (key: NewApiKey) {
      const orgId: OrgId = yield* requireOrg(key.orgId)
      const digest = Hex.encode(key.hash)
      // What the table's constraints refuse: faults of the caller, not outcomes to handle.
      if (key.hash.length !== 32) return yield* Effect.die(new RangeError("a key's digest is 32 bytes"))
      if (idsByHash.has(digest)) return yield* Effect.die(new Error("a key with this digest is already stored"))
      const record: ApiKeyRecord = {
        id: SecureRandom.uuidV4Unsafe() as ApiKeyId,
        orgId,
        name: key.name,
        displayStart: key.displayStart,
        createdAt: yield* DateTime.now,
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
      if (Option.isNone(found) || found.value.orgId !== canonical(org) || found.value.revokedAt !== null) {
        return yield* new ApiKeyNotFound({ id })
      }
      const record = { ...found.value, revokedAt: yield* DateTime.now }
      records.set(record.id, record)
      yield* PubSub.publish(announcements, record.id)
      return record
    })

    const usage = Effect.fn("MemoryApiKeyStore.usage")(function* (id: string) {
      const found = findRecord(id)
      if (Option.isNone(found)) return yield* new ApiKeyNotFound({ id })
      return { record: found.value, days: [] }
    })

    const revocations = Effect.map(PubSub.subscribe(announcements), Stream.fromSubscription)

    return ApiKeyStore.of({ findByHash, insert, listByOrg, revoke, revokeActive, usage, revocations })
  })
)
