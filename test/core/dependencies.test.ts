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
 * only the domain, ports import no services and no twins, and services import no twins (nor the
 * memory world's assembly): a service depends on ports, and which twin stands behind a port is
 * decided where layers are assembled (the app, `MemoryStorage`). The organization's action log is
 * written through `ActionLog` alone, so the shape of its entries is made in one place.
 *
 * Inside the HTTP adapter (`adapters/http/`), the imports form no circle, and a file of a
 * subfolder (`pipeline/`, `api/`, `dashboard/`, `probes/`, `transport/`) never imports a file of
 * the folder above it: the top-level files (`NodeServer.ts`, `Routes.ts`, `Rejections.ts`,
 * `ConnectionBudget.ts`, `Drain.ts`) are the adapter's entry points, which the app assembles,
 * and the subfolders are their parts. What the API and the dashboard both need lives in
 * `pipeline/`, which both may import; the API and the dashboard never import each other.
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

/** The HTTP adapter's files (`adapters/http/...`, with `/`), each with the files of it that it imports. */
const httpImports = (): ReadonlyMap<string, ReadonlyArray<string>> =>
  new Map(
    sources(join(root, "adapters", "http")).map((file) => [
      relative(root, file).split(sep).join("/"),
      importsOf(file)
        .filter((s) => s.startsWith("."))
        .map((s) => target(file, s).split(sep).join("/"))
        .filter((to) => to.startsWith("adapters/http/"))
    ])
  )

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

  it("a service of core imports no twin: not its context's, not another's, not the memory world's", () => {
    const broken = sources(join(root, "core"))
      .filter((file) => relative(root, file).split(sep)[2] === "services")
      .flatMap((file) =>
        importsOf(file)
          .filter((s) => s.startsWith("."))
          .filter((s) => {
            const [, context, layer] = target(file, s).split(sep)
            return context === "memory" || layer === "memory"
          })
          .map((s) => `${relative(root, file)} imports ${s}`)
      )
    assert.deepStrictEqual(broken, [])
  })

  it("the organization's action log is written through ActionLog alone", () => {
    const actionLog = join("core", "accounts", "services", "ActionLog.ts")
    // The log's reader may take the port itself; a writer takes ActionLog.
    const reader = join("core", "admin", "services", "OrganizationAudit.ts")
    const writers = sources(join(root, "core"))
      .filter((file) => ![actionLog, reader].includes(relative(root, file)))
      .filter((file) => relative(root, file).split(sep)[2] === "services")
      .filter((file) =>
        importsOf(file).some(
          (s) => s.startsWith(".") && target(file, s).endsWith(join("ports", "DashboardAuditLog.ts"))
        )
      )
      .filter((file) =>
        /import\s*\{[^}]*\bDashboardAuditLog\b[^}]*\}/.test(readFileSync(file, "utf8").replace(/\btype\s+\w+/g, ""))
      )
    assert.deepStrictEqual(
      writers.map((file) => relative(root, file)),
      []
    )
  })

  it("the HTTP adapter's imports form no circle", () => {
    const graph = httpImports()
    const circles: Array<string> = []
    const state = new Map<string, "open" | "done">()
    const path: Array<string> = []
    const visit = (file: string) => {
      state.set(file, "open")
      path.push(file)
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === "open") circles.push([...path.slice(path.indexOf(next)), next].join(" -> "))
        else if (!state.has(next)) visit(next)
      }
      path.pop()
      state.set(file, "done")
    }
    for (const file of graph.keys()) if (!state.has(file)) visit(file)
    assert.isAbove(graph.size, 5)
    assert.deepStrictEqual(circles, [])
  })

  it("inside the HTTP adapter, a subfolder never imports its parent folder, and the API and the dashboard never each other", () => {
    const broken: Array<string> = []
    for (const [file, imported] of httpImports()) {
      for (const to of imported) {
        const from = dirname(file)
        const upward = dirname(to) !== from && from.startsWith(`${dirname(to)}/`)
        const [fromPart, toPart] = [file.split("/")[2], to.split("/")[2]]
        const across = (fromPart === "api" && toPart === "dashboard") || (fromPart === "dashboard" && toPart === "api")
        if (upward || across) broken.push(`${file} imports ${to}`)
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
