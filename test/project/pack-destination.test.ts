/**
 * `npm pack` in the repository, as the README gives it for the SDK (`npm pack -w
 * partner-receivables-client`), writes its tarball to `packs/`, a folder that exists in every
 * checkout and whose tarballs git ignores, rather than leaving it untracked in the root.
 */
import { execFile } from "node:child_process"
import { stat } from "node:fs/promises"
import { join } from "node:path"
import { promisify } from "node:util"
import { assert, describe, it } from "@effect/vitest"

const run = promisify(execFile)
const root = join(import.meta.dirname, "..", "..")

/** Whether git ignores `path` (relative to the root): `git check-ignore` exits 0 for an ignored path, 1 for another. */
const ignored = (path: string) =>
  run("git", ["check-ignore", "--quiet", "--no-index", path], { cwd: root }).then(
    () => true,
    (error: { code?: number }) => (error.code === 1 ? false : Promise.reject(error))
  )

describe("npm pack in the repository", () => {
  it("writes its tarballs to packs/, which is there and whose tarballs git ignores", async () => {
    const { stdout } = await run("npm", ["config", "get", "pack-destination"], { cwd: root })
    assert.strictEqual(stdout.trim(), "packs")
    assert.isTrue((await stat(join(root, "packs"))).isDirectory())
    assert.isTrue(await ignored("packs/partner-receivables-client-0.1.0.tgz"))
    // The folder itself stays in every checkout, by the one file it tracks.
    assert.isFalse(await ignored("packs/.gitignore"))
  })
})
