/**
 * `database restored`: the operator's word that the database was restored, copied or recovered
 * where the service cannot tell (a copy of the data directory or of its volume, started as it
 * was): it opens a new incarnation at once, so that the events feed's consumers past the copy's
 * newest sequence are told to reload rather than skip events (`adapters/postgres/Incarnation.ts`).
 * A restore the service can tell (another server, another database, another WAL timeline) opens
 * one at the first start by itself; declaring it again costs a consumer nothing.
 */
import { Effect } from "effect"
import { Command } from "effect/cli"
import { json, print } from "./Common.ts"

const restored = Command.make(
  "restored",
  { json },
  Effect.fn(function* ({ json }) {
    const Incarnation = yield* Effect.promise(() => import("../../adapters/postgres/Incarnation.ts"))
    const opened = yield* Incarnation.declare.pipe(Effect.orDie)
    yield* print(
      json,
      { incarnation: opened.incarnation, organizations: opened.organizations, gap: Incarnation.restoreGap },
      () => [
        `opened incarnation ${opened.incarnation}: the events feed of ${opened.organizations} organization(s) moved forward by ${Incarnation.restoreGap.toLocaleString("en")} sequences`,
        "a consumer holding a sequence past this copy's newest is answered cursor_expired and reloads"
      ]
    )
  })
).pipe(
  Command.withDescription(
    "Declare that this database was restored from a backup or a copy of its files: the events feed opens a new incarnation"
  )
)

export const database = Command.make("database").pipe(
  Command.withDescription("The database's incarnation after a restore"),
  Command.withSubcommands([restored])
)
