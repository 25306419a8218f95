/**
 * `CommonPasswords` from the list shipped beside this file (`common-passwords.txt`: its source
 * and licence are in `README.md`), read once when the layer is built and held as a set (30,000
 * entries, about 2 MB of memory). `layerOf` takes any list, for embedders and tests.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Effect, Layer } from "effect"
import { CommonPasswords } from "../../core/accounts/ports/CommonPasswords.ts"

export const layerOf = (entries: Iterable<string>) => {
  const listed = new Set(Array.from(entries, (entry) => entry.toLowerCase()))
  return Layer.succeed(CommonPasswords, CommonPasswords.of({ isListed: (lowerCase) => listed.has(lowerCase) }))
}

export const layer = Layer.unwrap(
  Effect.sync(() =>
    layerOf(
      readFileSync(fileURLToPath(new URL("common-passwords.txt", import.meta.url)), "utf8")
        .split("\n")
        .filter((line) => line !== "")
    )
  )
)
