/**
 * Reading only new files must not change what the receivables end up saying. Property: whatever
 * exports arrive, change or go, and whatever the file limit, syncs that read by `planInNameOrder`
 * (newest export wins within a sync, the engine keeping what a sync does not return) leave every
 * key with the row a full read of the directory gives.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { type Inbox, type InboxEntry, planInNameOrder, remembering } from "../../../adapters/portals/inbox/Inbox.ts"

/** An export: its version and its rows, key → value. */
type Exports = Map<string, { readonly version: string; readonly rows: ReadonlyMap<string, string> }>

/** An inbox for one fetch, remembering in `files` across fetches as the SFTP inbox does. */
const inboxOver = (files: Map<string, string>, maxFiles: number): Inbox => ({
  place: "the test inbox",
  list: Effect.die("not listed here"),
  open: () => Effect.die("not opened here"),
  ...remembering(files),
  maxFiles
})

const entriesOf = (exports: Exports): ReadonlyArray<InboxEntry> =>
  [...exports.keys()].sort().map((name) => ({ name, version: exports.get(name)!.version }))

/** What a fetch of these files gives, as the file connector reads them: newest export first, each key once. */
const fetched = (exports: Exports, files: ReadonlyArray<string>) => {
  const given = new Map<string, string>()
  for (const file of files.toReversed()) {
    for (const [key, value] of exports.get(file)!.rows) if (!given.has(key)) given.set(key, value)
  }
  return given
}

const operation = fc.oneof(
  fc.record({
    _tag: fc.constant("write" as const),
    name: fc.integer({ min: 0, max: 12 }).map((n) => `export-${String(n).padStart(2, "0")}.csv`),
    rows: fc.array(fc.tuple(fc.constantFrom("K1", "K2", "K3", "K4", "K5"), fc.string({ maxLength: 3 })), {
      maxLength: 4
    })
  }),
  fc.record({
    _tag: fc.constant("remove" as const),
    name: fc.integer({ min: 0, max: 12 }).map((n) => `export-${String(n).padStart(2, "0")}.csv`)
  }),
  fc.record({ _tag: fc.constant("sync" as const) })
)

describe("reading only new exports", () => {
  it("leaves every key with the row a full read gives, whatever arrives and whatever the file limit", () =>
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 30 }), fc.integer({ min: 1, max: 6 }), (operations, maxFiles) => {
        const exports: Exports = new Map()
        const memory = new Map<string, string>()
        const stored = new Map<string, string>()
        let versions = 0
        const sync = () => {
          const plan = planInNameOrder(inboxOver(memory, maxFiles), entriesOf(exports))
          for (const [key, value] of fetched(exports, plan.files)) stored.set(key, value)
          Effect.runSync(plan.done)
          return plan.files.length
        }
        for (const step of operations) {
          if (step._tag === "write") exports.set(step.name, { version: String(++versions), rows: new Map(step.rows) })
          else if (step._tag === "remove") exports.delete(step.name)
          else sync()
        }
        // Syncs until one reads nothing: the limit spreads a backlog over several, never forever.
        let syncs = 0
        while (sync() > 0) {
          syncs++
          assert.isAtMost(syncs, Math.ceil(exports.size / maxFiles) + 1)
        }
        for (const [key, value] of fetched(exports, [...exports.keys()].sort())) {
          assert.strictEqual(stored.get(key), value, key)
        }
      }),
      { numRuns: 500 }
    ))
})
