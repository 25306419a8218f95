/**
 * `MemoryStorage.layer` provides every storage port, and each port's contract suite runs on its
 * twin and on PostgreSQL: the claims docs/embedding.md makes, held against the ports as they are in
 * each context's `ports/` folder (`core/<context>/ports/`), so that a port added there without a twin or a contract fails here rather than in
 * an embedder's program.
 *
 * The rule: a port is storage when it keeps the service's records, what is written through it
 * being read back later, by this process or another; in production PostgreSQL holds them, and the
 * twin holds them in its context's tables (`ReceivablesState`, ...). A port is not storage when it reaches the outside world,
 * computes without keeping anything, reads what is shipped or mounted beside the app, or tells
 * this process's own health. Those are the embedder's to provide, and each is named below with
 * why it is not storage.
 */
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import * as MemoryStorage from "../../../core/memory/MemoryStorage.ts"

const notStorage: Record<string, string> = {
  PortalConnectors: "reaches the outside world: the debtor portals",
  WebhookSender: "reaches the outside world: the receivers' HTTP endpoints",
  PasswordHasher: "computes a hash (scrypt, from the platform) and keeps nothing",
  WebhookCrypto: "computes signatures, seals secrets and draws randomness, and keeps nothing",
  OneTimeCodes: "computes authenticator codes and keeps nothing",
  IdSource: "draws fresh ids and keeps nothing",
  CommonPasswords: "reads a list shipped with the app",
  Secrets: "reads connector credentials where they are mounted, never stored",
  Readiness: "tells whether this process can serve, asking whatever storage it runs over",
  SignInThrottleStandIn:
    "counts sign-in attempts in this process alone while the shared SignInThrottleStore cannot be reached: memory by design, never PostgreSQL (the twin's own-state store, held to the store's contract; MemoryStorage provides it too)"
}

const root = join(import.meta.dirname, "..", "..", "..")
const portFiles = readdirSync(join(root, "core"), { withFileTypes: true })
  .filter((context) => context.isDirectory() && existsSync(join(root, "core", context.name, "ports")))
  .flatMap((context) => {
    const folder = join(root, "core", context.name, "ports")
    return readdirSync(folder)
      .filter((file) => file.endsWith(".ts"))
      .map((file) => join(folder, file))
  })

/** Every service key that a module of a context's `ports/` exports, by its exported name. */
const ports = Effect.promise(() =>
  Promise.all(
    portFiles.map(async (file) => {
      const module: Record<string, unknown> = await import(pathToFileURL(file).href)
      return Object.entries(module).flatMap(([name, value]) =>
        Context.isKey(value) ? [{ name, key: value as Context.Key<unknown, unknown> }] : []
      )
    })
  ).then((found) => found.flat())
)

describe("the storage ports", () => {
  it.effect("each port of a context's ports/ folder is storage, or named here with why it is not", () =>
    Effect.gen(function* () {
      const names = (yield* ports).map((port) => port.name)
      assert.includeMembers(names, ["ReceivableStore", "WebhookDeliveryStore"], "the ports are found")
      assert.includeMembers(names, Object.keys(notStorage), "every port named as not storage still exists")
    })
  )

  it.effect("MemoryStorage.layer provides every storage port", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(MemoryStorage.layer)
        const storage = (yield* ports).filter((port) => !(port.name in notStorage))
        const missing = storage.filter((port) => Option.isNone(Context.getOption(context, port.key)))
        assert.deepStrictEqual(
          missing.map((port) => port.name),
          []
        )
      })
    )
  )

  it.effect("each storage port's contract suite runs on its memory twin and on PostgreSQL", () =>
    Effect.gen(function* () {
      const storage = (yield* ports).filter((port) => !(port.name in notStorage))
      const runs = storage.flatMap(({ name }) =>
        [`${name}.contract.ts`, `${name}.memory.test.ts`, `${name}.postgres.test.ts`].map((file) =>
          join("test", "contracts", file)
        )
      )
      assert.deepStrictEqual(
        runs.filter((file) => !existsSync(join(root, file))),
        []
      )
    })
  )
})
