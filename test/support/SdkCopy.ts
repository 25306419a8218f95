/**
 * A consumer's copy kept by the SDK's `sync` as the README tells it (upsert by id, apply each
 * pair's schedule), and what it must equal: a fresh full load (`verified_since=all`, metadata
 * expanded). For end-to-end tests of the feeds against a running service.
 */
import { Effect } from "effect"
import type { PartnerReceivables, SyncCheckpoint, SyncedReceivable } from "../../client/src/mod.ts"

/** A consumer as the README tells it to keep its copy: upsert by id, and apply each pair's schedule. */
export const consumer = (client: PartnerReceivables, feed: "events" | "watermark", onFirst: () => void) => {
  const copy = new Map<string, SyncedReceivable>()
  let checkpoint: SyncCheckpoint | undefined
  const sync = () =>
    Effect.promise(() =>
      client.sync({
        feed,
        checkpoint,
        limit: 2,
        onReceivable: (receivable) => {
          copy.set(receivable.id, receivable)
          onFirst()
        },
        onSchedule: ({ vendor_id, debtor_id, estimated_next_update_at }) => {
          for (const receivable of copy.values()) {
            if (receivable.vendor.id === vendor_id && receivable.debtor.id === debtor_id) {
              copy.set(receivable.id, { ...receivable, estimated_next_update_at })
            }
          }
        },
        saveCheckpoint: (saved) => {
          checkpoint = saved
        }
      })
    )
  return { copy, sync }
}

/** Every receivable as a fresh full load reads it, by id. */
export const fullLoad = (client: PartnerReceivables) =>
  Effect.promise(async () => {
    const all = new Map<string, unknown>()
    for await (const receivable of client.receivables.iterate({
      verified_since: "all",
      expand: ["metadata"],
      limit: 500
    })) {
      all.set(receivable.id, receivable)
    }
    return all
  })

export const byId = <A>(map: ReadonlyMap<string, A>) => [...map.entries()].sort(([a], [b]) => a.localeCompare(b))
