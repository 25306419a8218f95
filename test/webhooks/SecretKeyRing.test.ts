/**
 * The master keys of sealed secrets: `WEBHOOK_SECRET_KEYS` is checked at start, and without it
 * the key file in `DATA_DIR` is made once (mode 0600) and read by every later start.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { keyFileName, keyRing, parseKeyRing } from "../../adapters/webhooks/SecretKeyRing.ts"

const key = (byte: number, length = 32) => Buffer.alloc(length, byte).toString("base64")

const withEnv = (env: Record<string, string>) =>
  Effect.provide(Layer.succeed(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env })))

describe("the webhook secrets' master keys", () => {
  it("a ring lists versioned 32-byte keys; anything else says what is wrong", () => {
    const ring = parseKeyRing(`1:${key(1)}, 7:${key(7)}`)
    assert.notStrictEqual(typeof ring, "string")
    if (typeof ring !== "string") assert.deepStrictEqual([...ring.keys()], [1, 7])
    for (const bad of ["", `1:${key(1, 16)}`, `1:${key(1)},1:${key(2)}`, key(1), `v1:${key(1)}`]) {
      assert.isString(parseKeyRing(bad), bad)
    }
  })

  it.effect(
    "without the setting, the key file is made once and read by every later start, readable by its owner only",
    () =>
      Effect.gen(function* () {
        const dataDir = join(mkdtempSync(join(tmpdir(), "webhook-keys-")), "data")
        const rings = yield* Effect.all(
          Array.from({ length: 8 }, () => keyRing.pipe(withEnv({ DATA_DIR: dataDir }))),
          { concurrency: "unbounded" }
        )
        const path = join(dataDir, keyFileName)
        assert.strictEqual(statSync(path).mode & 0o777, 0o600)
        const written = parseKeyRing(readFileSync(path, "utf8"))
        assert.notStrictEqual(typeof written, "string")
        for (const ring of rings) assert.deepStrictEqual(ring, written)
      })
  )

  it.effect("the setting wins over the key file", () =>
    Effect.gen(function* () {
      const dataDir = mkdtempSync(join(tmpdir(), "webhook-keys-"))
      const ring = yield* keyRing.pipe(withEnv({ DATA_DIR: dataDir, WEBHOOK_SECRET_KEYS: `3:${key(3)}` }))
      assert.deepStrictEqual([...ring.keys()], [3])
      assert.throws(() => statSync(join(dataDir, keyFileName)))
    })
  )
})
