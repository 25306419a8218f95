/**
 * `npm ci` installs exactly what the lock file holds and refuses a lock that lacks an optional
 * dependency some locked package declares (a platform build of a native tool, say), even when
 * that dependency is for another platform. So the lock must hold all of them for `npm ci` to
 * work on Linux and macOS alike.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"

interface LockedPackage {
  readonly optionalDependencies?: Readonly<Record<string, string>>
}

const lock = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package-lock.json"), "utf8")) as {
  readonly packages: Readonly<Record<string, LockedPackage>>
}

describe("package-lock.json", () => {
  it("holds every optional dependency of every locked package, for every platform", () => {
    const missing: Array<string> = []
    for (const [path, locked] of Object.entries(lock.packages)) {
      for (const name of Object.keys(locked.optionalDependencies ?? {})) {
        const nested = path === "" ? `node_modules/${name}` : `${path}/node_modules/${name}`
        if (!(nested in lock.packages) && !(`node_modules/${name}` in lock.packages)) {
          missing.push(`${path || "the project"} -> ${name}`)
        }
      }
    }
    assert.deepStrictEqual(missing, [])
  })
})
