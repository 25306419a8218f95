/**
 * Events in an organization's feed, written as a sync writes them: a pair session that creates
 * receivables, one `receivable.created` event each, carrying text beyond ASCII so that signatures
 * and bodies are checked on more than one byte per character.
 */
import { DateTime, Effect } from "effect"
import fc from "fast-check"
import type { PlannedEvent } from "../../../core/receivables/domain/PairSync.ts"
import { type Pair, PairStore } from "../../../core/receivables/ports/PairStore.ts"
import { noCounts, receivableId } from "../../contracts/PairStore.harness.ts"
import { arbitraryState } from "../../support/arbitraries.ts"

export const nonAscii = "Zürich – 東京 🚀 \u00e9\u0301"

let written = 0

/** Commits a sync of the pair that creates `count` receivables; answers their events' tags. */
export const syncEvents = (pair: Pair, count: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const store = yield* PairStore
      const at = yield* DateTime.now
      const session = yield* store.session(pair, "webhooks-test", at)
      const states = fc.sample(arbitraryState, count)
      const inserts = states.map((state) => ({
        id: receivableId(),
        documentKey: `doc-${++written}`,
        state,
        detectedAt: at
      }))
      const events: Array<PlannedEvent> = inserts.map((insert) => ({
        type: "receivable.created",
        receivableId: insert.id,
        createdAt: at,
        data: { receivable_id: insert.id, tag: insert.documentKey, note: nonAscii }
      }))
      yield* session.writeChunk({ inserts, updates: [], events })
      yield* session.finish({ counts: noCounts, quarantine: [], nextSyncAt: DateTime.add(at, { hours: 1 }) })
      return inserts.map((insert) => insert.documentKey)
    })
  )

/** The tag `syncEvents` gave an event, read back from a delivery's body. */
export const tagOf = (body: string): string => (JSON.parse(body) as { data: { tag: string } }).data.tag
