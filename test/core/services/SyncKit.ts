/**
 * What the core sync tests share: the engine over the memory twin of `PairStore`, portals whose
 * answer a pair's configuration scripts (documents, a failure, a delay, a failure half-way, no
 * answer at all), identifiers from a counter, and pairs seeded due or not. No database, no
 * adapter: these tests run in milliseconds under `TestClock`.
 */
import { DateTime, Duration, Effect, Layer, Option, Schema, Stream } from "effect"
import { states as memoryStates } from "../../../core/memory/MemoryStorage.ts"
import type { FetchedDocument } from "../../../core/receivables/domain/PairSync.ts"
import { makeStatusMapping } from "../../../core/receivables/domain/Status.ts"
import { layerMemory, MemoryPairs } from "../../../core/receivables/memory/PairStore.ts"
import type { Pair, PairStore } from "../../../core/receivables/ports/PairStore.ts"
import {
  ConnectorFailed,
  configuredStatusMapping,
  type PairToFetch,
  type PortalConnector,
  PortalConnectors,
  whenApplied
} from "../../../core/receivables/ports/PortalConnector.ts"
import { defaultDeadline, SyncEngine } from "../../../core/receivables/services/SyncEngine.ts"
import type { DebtorId, OrgId, PairId, ReceivableId, VendorId } from "../../../core/shared/domain/Ids.ts"
import { IdSource } from "../../../core/shared/ports/IdSource.ts"
import { Secrets, SecretUnavailable } from "../../../core/shared/ports/Secrets.ts"

/** A pair's script: what its portal answers. */
export interface Script {
  readonly documents?: ReadonlyArray<FetchedDocument>
  /** Fails the fetch at once, or after the documents with `thenFail`. */
  readonly failure?:
    | { readonly message: string; readonly retryable: boolean; readonly retryAfterSeconds?: number }
    | undefined
  readonly thenFail?: boolean
  /** Answers only after this long (virtual time). */
  readonly delaySeconds?: number
  /** Never answers. */
  readonly hang?: boolean
  /** The integration's own status wording, as `file` and `http-json` configurations carry it. */
  readonly statuses?: Readonly<Record<string, string>>
  /** Noted once the engine has applied a complete fetch, as an inbox notes the files it read. */
  readonly remembered?: Array<string>
}

export const document = (key: string, overrides: Partial<FetchedDocument> = {}): FetchedDocument => ({
  documentKey: key,
  vendorReceivableId: `INV-${key}`,
  amountCents: 10_000,
  currency: "EUR",
  receivableDate: "2026-01-01",
  dueDate: null,
  portalStatus: "Submitted",
  poNumber: null,
  metadata: {},
  ...overrides
})

const answer = (script: Script, pair: PairToFetch): Stream.Stream<FetchedDocument, ConnectorFailed> => {
  if (script.hang === true) return Stream.never
  const failure = script.failure === undefined ? undefined : new ConnectorFailed(script.failure)
  const remembered = script.remembered
  const documents = Stream.concat(
    Stream.fromIterable(script.documents ?? []),
    Stream.fromEffectDrain(
      remembered === undefined
        ? Effect.void
        : whenApplied(
            pair,
            Effect.sync(() => remembered.push("fetch"))
          )
    )
  )
  const answered =
    failure === undefined
      ? documents
      : script.thenFail === true
        ? Stream.concat(documents, Stream.fail(failure))
        : Stream.fail(failure)
  return script.delaySeconds === undefined
    ? answered
    : Stream.unwrap(Effect.as(Effect.sleep(Duration.seconds(script.delaySeconds)), answered))
}

export const scripted: PortalConnector = {
  kind: "scripted",
  configSchema: Schema.Unknown,
  statusMapping: makeStatusMapping({ "on the desk": "PENDING" }),
  statusMappingOf: configuredStatusMapping,
  defaultInterval: Duration.hours(1),
  fetch: (pair) => answer(pair.config as Script, pair)
}

let counter = 0
const hex = () => (++counter).toString(16).padStart(32, "0")

const support = Layer.mergeAll(
  Layer.succeed(PortalConnectors, { get: (kind) => (kind === "scripted" ? Option.some(scripted) : Option.none()) }),
  Layer.succeed(IdSource, {
    receivableId: () => `rcv_${hex()}` as ReceivableId,
    requestId: () => `req_${hex().slice(8)}`
  }),
  Layer.succeed(Secrets, { resolve: () => Effect.fail(new SecretUnavailable({ message: "no secrets here" })) })
)

/** The engine over a store (the memory twin unless given), with the store and its seeding exposed. */
export const engineLayer = (
  options: { readonly chunkSize?: number } = {},
  store: Layer.Layer<PairStore | MemoryPairs> = layerMemory.pipe(Layer.provide(memoryStates))
) =>
  SyncEngine.layerWith({ deadline: defaultDeadline, chunkSize: options.chunkSize }).pipe(
    Layer.provideMerge(store),
    Layer.provide(support)
  )

/** A new pair whose portal answers `script`, due `dueIn` from now (negative: overdue). */
export const addPair = Effect.fnUntraced(function* (
  script: Script,
  options: { readonly dueIn?: Duration.Input; readonly paused?: boolean; readonly deadline?: Duration.Input } = {}
) {
  const memory = yield* MemoryPairs
  const integration: Pair = {
    id: crypto.randomUUID() as PairId,
    orgId: crypto.randomUUID() as OrgId,
    refs: {
      vendor: { id: crypto.randomUUID() as VendorId, name: "Acme" },
      debtor: { id: crypto.randomUUID() as DebtorId, name: "Globex" }
    },
    connector: "scripted",
    config: script,
    interval: Duration.hours(1),
    deadline: options.deadline === undefined ? undefined : Duration.fromInputUnsafe(options.deadline),
    consecutiveFailures: 0
  }
  const now = yield* DateTime.now
  const dueIn = Duration.fromInputUnsafe(options.dueIn ?? Duration.zero)
  yield* memory.put({ integration, nextSyncAt: DateTime.addDuration(now, dueIn), paused: options.paused ?? false })
  return integration
})

/** Gives the pair a new script, as if its portal's answer had changed. */
export const rescript = Effect.fnUntraced(function* (pair: Pair, script: Script) {
  const memory = yield* MemoryPairs
  const { pair: stored } = yield* Effect.orDie(memory.contents(pair.id))
  const integration = { ...stored.integration, config: script }
  yield* memory.put({ ...stored, integration })
  return integration
})

export const contents = (pair: Pair) => Effect.flatMap(MemoryPairs, (memory) => Effect.orDie(memory.contents(pair.id)))
