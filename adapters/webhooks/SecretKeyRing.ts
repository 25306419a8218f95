/**
 * The master keys that seal endpoint secrets at rest: `WEBHOOK_SECRET_KEYS`, versioned entries
 * `<version>:<base64 of 32 bytes>` separated by commas. The highest version seals; every version
 * listed opens, so a key is rotated by adding a higher one and removing the old once nothing
 * sealed under it is left. Unset, a key file in `DATA_DIR` is used, and made (mode 0600) the
 * first time, which is logged: fine for one machine, while several processes need the setting.
 */
import { randomBytes } from "node:crypto"
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Config, Effect, Option, Redacted, Result, Schema } from "effect"

export type KeyRing = ReadonlyMap<number, Buffer>

/** The ring a setting's text describes, or what is wrong with it. */
export const parseKeyRing = (text: string): KeyRing | string => {
  const ring = new Map<number, Buffer>()
  for (const entry of text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "")) {
    const match = /^(\d{1,6}):([A-Za-z0-9+/]+={0,2})$/.exec(entry)
    if (match === null) return "each key is <version>:<base64 of 32 bytes>, separated by commas"
    const key = Buffer.from(match[2]!, "base64")
    if (key.length !== 32) return `key version ${match[1]} is not 32 bytes`
    if (ring.has(Number(match[1]))) return `key version ${match[1]} is listed twice`
    ring.set(Number(match[1]), key)
  }
  return ring.size === 0 ? "no key is listed" : ring
}

/** `WEBHOOK_SECRET_KEYS`, checked at start; absent when unset. */
export const secretKeys = Config.schema(
  Schema.String.check(
    Schema.makeFilter((text) => typeof parseKeyRing(text) !== "string", {
      expected: "versioned keys <version>:<base64 of 32 bytes> separated by commas, e.g. 1:q0v...="
    })
  ),
  "WEBHOOK_SECRET_KEYS"
).pipe(
  Config.map((text) => Redacted.make(text)),
  Config.option
)

export const keyFileName = "webhook-secret-keys"

/**
 * Makes the key file unless it exists: written whole under a name of its own, then linked into
 * place, which fails if another process made it first. So processes starting together on one
 * `DATA_DIR` agree on one key, and none reads a file half written. Answers whether it made it.
 */
const makeKeyFile = (dataDir: string, path: string) =>
  Effect.sync(() => {
    if (existsSync(path)) return false
    mkdirSync(dataDir, { recursive: true })
    const draft = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`
    writeFileSync(draft, `1:${randomBytes(32).toString("base64")}\n`, { mode: 0o600 })
    chmodSync(draft, 0o600)
    const made = Result.try(() => linkSync(draft, path))
    unlinkSync(draft)
    if (Result.isSuccess(made)) return true
    if ((made.failure as NodeJS.ErrnoException).code === "EEXIST") return false
    throw made.failure
  })

/** The key file's ring, made with one fresh key when there is none yet. */
const fromKeyFile = (dataDir: string) =>
  Effect.gen(function* () {
    const path = join(dataDir, keyFileName)
    if (yield* makeKeyFile(dataDir, path)) {
      yield* Effect.logWarning(
        `WEBHOOK_SECRET_KEYS is not set: made the webhook secrets' master key in ${path} (mode 0600); ` +
          "set WEBHOOK_SECRET_KEYS where several processes share the database"
      )
    }
    const parsed = parseKeyRing(readFileSync(path, "utf8"))
    if (typeof parsed === "string") return yield* Effect.die(new Error(`${path}: ${parsed}`))
    return parsed
  })

/** The ring from the setting, or else from the key file in `DATA_DIR`. */
export const keyRing = Effect.gen(function* () {
  const configured = yield* secretKeys
  if (Option.isSome(configured)) return parseKeyRing(Redacted.value(configured.value)) as KeyRing
  return yield* fromKeyFile(yield* Config.String("DATA_DIR").pipe(Config.withDefault(".data")))
})
