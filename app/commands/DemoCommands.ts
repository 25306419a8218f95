/** `demo seed`: another demo organization, synced, with a key. */
import { Effect, Redacted } from "effect"
import { Command } from "effect/cli"
import * as Demo from "../Demo.ts"
import * as PublicUrl from "../PublicUrl.ts"
import { json, print } from "./Common.ts"

const demoSeed = Command.make(
  "seed",
  { json },
  Effect.fn(function* ({ json }) {
    const seeded = yield* Demo.seed()
    // The lines to paste reach the service where it listens: `PUBLIC_URL`, or this machine's `PORT`.
    const base = yield* PublicUrl.baseUrl
    yield* print(json, { org_id: seeded.orgId, key: Redacted.value(seeded.key), receivables: seeded.receivables }, () =>
      // The welcome is the service's own text, lines of it.
      Demo.welcome(seeded, base).trimEnd().split("\n")
    )
  })
).pipe(Command.withDescription("Create a demo organization with simulated portals, synced, and an API key"))

export const demo = Command.make("demo").pipe(Command.withDescription("Demo data"), Command.withSubcommands([demoSeed]))
