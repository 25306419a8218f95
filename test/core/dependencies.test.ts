/**
 * The architecture's rules, as tests: dependencies point inward only. Core imports `effect`
 * alone, so teams can embed it anywhere; an adapter imports core and its own folder, never
 * another adapter (what two adapters share is a port, or belongs in core); nothing but app and
 * tests wires adapters together; core never imports app.
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..")

const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

/** Every import specifier of a file: static `from "..."` and dynamic `import("...")`. */
const importsOf = (file: string): ReadonlyArray<string> => {
  const text = readFileSync(file, "utf8")
  return [...text.matchAll(/\bfrom\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g)].map(
    (match) => (match[1] ?? match[2])!
  )
}

/** The repository path (`adapters/http/pipeline/Pipeline.ts`) a relative import of `file` resolves to. */
const target = (file: string, specifier: string) => relative(root, resolve(dirname(file), specifier))

describe("dependencies", () => {
  it("core imports nothing but effect and its own files, so teams can embed it anywhere", () => {
    const files = sources(join(root, "core"))
    assert.isAbove(files.length, 5)
    for (const file of files) {
      for (const specifier of importsOf(file)) {
        assert.match(specifier, /^(\.\.?\/|effect$|effect\/)/, `${relative(root, file)} imports ${specifier}`)
        if (specifier.startsWith(".")) {
          assert.match(target(file, specifier), /^core\//, `${relative(root, file)} imports ${specifier}`)
        }
      }
    }
  })

  it("an adapter imports core and its own folder, never another adapter nor the app", () => {
    const files = sources(join(root, "adapters"))
    assert.isAbove(files.length, 5)
    for (const file of files) {
      const own = relative(root, file).split(sep).slice(0, 2).join("/")
      for (const specifier of importsOf(file).filter((s) => s.startsWith("."))) {
        const to = target(file, specifier).split(sep).join("/")
        assert.isTrue(
          to.startsWith("core/") || to.startsWith(`${own}/`),
          `${relative(root, file)} imports ${specifier} (${to})`
        )
      }
    }
  })
})
