import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const coreDir = join(import.meta.dirname, "..", "..", "core")

const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

describe("core/", () => {
  it("imports nothing but effect and its own files, so teams can embed it anywhere", () => {
    const files = sources(coreDir)
    assert.isAbove(files.length, 5)
    for (const file of files) {
      for (const [, specifier] of readFileSync(file, "utf8").matchAll(/\bfrom\s+["']([^"']+)["']/g)) {
        assert.match(specifier!, /^(\.\.?\/|effect$|effect\/)/, `${relative(coreDir, file)} imports ${specifier}`)
      }
    }
  })
})
