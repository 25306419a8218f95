/**
 * The architecture's rules, as tests: dependencies point inward only. Core imports `effect`
 * alone, so teams can embed it anywhere; an adapter imports core and its own folder, never
 * another adapter (what two adapters share is a port, or belongs in core); nothing but app and
 * tests wires adapters together; core never imports app.
 *
 * Inside core, each bounded context may import only the contexts below it, so that the arrows
 * between contexts form no circle: `shared` (ids, values, organizations) imports no other;
 * `receivables` and `access` import `shared`; `accounts` imports `access` (a removed user's keys);
 * `webhooks` imports `receivables` (the events it delivers), `access` (secrets kept out of answers)
 * and `accounts` (the action log); `admin`, the per-organization views and actions, imports them
 * all. The HTTP contract (`api`) imports the contexts whose resources it names; the memory
 * world's assembly (`memory`) sits above every context. Inside a context, the domain imports
 * only the domain, ports import no services and no twins, and services import no twins.
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

/** What each folder of core may import besides itself. */
const contextMayImport: Record<string, ReadonlyArray<string>> = {
  shared: [],
  receivables: ["shared"],
  access: ["shared"],
  accounts: ["shared", "access"],
  webhooks: ["shared", "access", "accounts", "receivables"],
  admin: ["shared", "access", "accounts", "receivables", "webhooks"],
  api: ["shared", "access", "receivables", "webhooks"],
  memory: ["shared", "access", "accounts", "receivables", "webhooks"]
}

/** What each layer inside a context may import from its own context besides itself. */
const layerMayImport: Record<string, ReadonlyArray<string>> = {
  domain: [],
  ports: ["domain"],
  services: ["domain", "ports"],
  memory: ["domain", "ports"]
}

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

  it("a context of core imports only the contexts below it, and inside it the layers point inward", () => {
    const files = sources(join(root, "core"))
    const folders = new Set(
      readdirSync(join(root, "core"), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
    )
    assert.sameMembers(
      [...folders].filter((f) => f !== "dist"),
      Object.keys(contextMayImport),
      "every folder of core has its rule"
    )
    const broken: Array<string> = []
    for (const file of files) {
      const [, context, layer] = relative(root, file).split(sep)
      if (context === undefined || layer === undefined || !(context in contextMayImport)) continue
      for (const specifier of importsOf(file).filter((s) => s.startsWith("."))) {
        const [, toContext, toLayer] = target(file, specifier).split(sep)
        const allowed =
          toContext !== undefined &&
          !toContext.endsWith(".ts") &&
          (toContext === context
            ? !(layer in layerMayImport) || toLayer === layer || layerMayImport[layer]!.includes(toLayer!)
            : contextMayImport[context]!.includes(toContext))
        if (!allowed) broken.push(`${relative(root, file)} imports ${specifier}`)
      }
    }
    assert.deepStrictEqual(broken, [])
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
