/**
 * The operator CLI's shape: commands that need no database run without one (`--help`, `status
 * explain`), and the help names every bundled connector kind.
 */
import { execFile } from "node:child_process"
import { join } from "node:path"
import { promisify } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import * as Connectors from "../../adapters/portals/Connectors.ts"

const cli = join(import.meta.dirname, "..", "..", "app", "cli.ts")

// A database nobody listens on: a command that tried to use it would fail.
const noDatabase = { ...process.env, DATABASE_URL: "postgres://nobody:secret@127.0.0.1:9/none" }

const run = (...args: Array<string>) => promisify(execFile)(process.execPath, [cli, ...args], { env: noDatabase })

describe("the operator CLI", () => {
  it("explains a status without a database", async () => {
    const { stdout } = await run("status", "explain", "Partly Paid", "--json")
    assert.strictEqual((JSON.parse(stdout) as { status: string }).status, "APPROVED")
  })

  it("names every bundled connector kind in the help of integration create", async () => {
    const { stdout } = await run("integration", "create", "--help")
    for (const connector of Connectors.all) assert.include(stdout, connector.kind)
  })
})
