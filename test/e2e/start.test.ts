/**
 * `npm start` as an operator runs it: a real process on the embedded default, probed over HTTP,
 * stopped by a signal, started again on the same data; and the one-line errors of a bad start.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { type AppProcess, healthy as healthyAt, spawnApp } from "../support/AppProcess.ts"
import { freePort } from "../support/ports.ts"

const startApp = (env: Record<string, string>) => spawnApp({ DATABASE_URL: "", ...env })

const healthy = (port: number, started: AppProcess) => healthyAt(`http://127.0.0.1:${port}`, started)

/** What the app prints matching `pattern`, once it has printed it. */
const printed = async (app: AppProcess, pattern: RegExp): Promise<RegExpExecArray> => {
  for (;;) {
    const found = pattern.exec(app.output())
    if (found !== null) return found
    if (app.child.exitCode !== null) throw new Error(`the app exited: ${app.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe("npm start", () => {
  let dataDir = ""
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "receivables-start-"))
    // As root, the server runs as "postgres", which must be able to enter the directory.
    await chmod(dataDir, 0o755)
  })
  afterAll(() => rm(dataDir, { recursive: true, force: true }))

  it("serves /health on the embedded database, stops on SIGTERM, and starts again on the same data", async () => {
    const port = await freePort()
    const env = { DATA_DIR: dataDir, PORT: String(port), EMBEDDED_POSTGRES_PORT: String(await freePort()) }

    const first = startApp(env)
    assert.deepStrictEqual(await healthy(port, first), { status: "ok" })
    // The demo's welcome (printed once the seed is done) names the dashboard and a one-time
    // link for the demo's admin.
    const invite = await printed(first, new RegExp(`http://localhost:${port}(/dashboard/invite/[A-Za-z0-9_-]{43})`))
    assert.include(first.output(), `Dashboard: http://localhost:${port}/dashboard`)
    assert.strictEqual((await fetch(`http://127.0.0.1:${port}${invite[1]}`)).status, 200)
    first.child.kill("SIGTERM")
    assert.strictEqual(await first.exited, 0)

    const second = startApp(env)
    assert.deepStrictEqual(await healthy(port, second), { status: "ok" })
    second.child.kill("SIGINT")
    assert.strictEqual(await second.exited, 0)
    assert.notMatch(second.output(), /initdb|Error/)
  })

  it("takes over the data directory from a killed run", async () => {
    const port = await freePort()
    const env = { DATA_DIR: dataDir, PORT: String(port), EMBEDDED_POSTGRES_PORT: String(await freePort()) }
    const killed = startApp(env)
    await healthy(port, killed)
    killed.child.kill("SIGKILL")
    await killed.exited

    const next = startApp(env)
    assert.deepStrictEqual(await healthy(port, next), { status: "ok" })
    next.child.kill("SIGTERM")
    assert.strictEqual(await next.exited, 0)
  })

  const failsWithOneLine = async (env: Record<string, string>, expected: RegExp) => {
    const started = startApp({ DATA_DIR: dataDir, ...env })
    assert.strictEqual(await started.exited, 1)
    const lines = started.output().trim().split("\n")
    assert.strictEqual(lines.length, 1, started.output())
    assert.match(lines[0]!, expected)
  }

  it("refuses an unreachable DATABASE_URL with one line, without the password", async () => {
    await failsWithOneLine(
      { DATABASE_URL: "postgres://app:hunter2@127.0.0.1:1/receivables", PORT: String(await freePort()) },
      /^partner-receivables: cannot use PostgreSQL at postgres:\/\/app@127\.0\.0\.1:1\/receivables: connect ECONNREFUSED/
    )
  })

  it("refuses a port in use with one line", async () => {
    const port = await freePort()
    const blocker = createServer().listen(port, "0.0.0.0")
    try {
      await failsWithOneLine(
        { PORT: String(port), EMBEDDED_POSTGRES_PORT: String(await freePort()) },
        /^partner-receivables: cannot listen: the port is already in use/
      )
    } finally {
      blocker.close()
    }
  })

  it("refuses a malformed setting with one line naming it", async () => {
    await failsWithOneLine({ PORT: "eighty" }, /^partner-receivables: invalid configuration: PORT: expected/)
  })

  it("reports every malformed setting, one line each", async () => {
    const started = startApp({ DATA_DIR: dataDir, PORT: "eighty", SYNC_CONCURRENCY: "0", KEY_BRAND: "Not OK" })
    assert.strictEqual(await started.exited, 1)
    const lines = started.output().trim().split("\n")
    assert.strictEqual(lines.length, 3, started.output())
    assert.match(lines[0]!, /invalid configuration: PORT: /)
    assert.match(lines[1]!, /invalid configuration: KEY_BRAND: /)
    assert.match(lines[2]!, /invalid configuration: SYNC_CONCURRENCY: /)
  })

  it("refuses fair-share settings out of their bounds: live keys, an organization's burst, sync now's interval", async () => {
    const started = startApp({
      DATA_DIR: dataDir,
      MAX_LIVE_KEYS_PER_ORGANIZATION: "0",
      ORG_RATE_LIMIT_BURST: "1.5",
      MANUAL_SYNC_MIN_SECONDS: "-1"
    })
    assert.strictEqual(await started.exited, 1)
    const lines = started.output().trim().split("\n")
    assert.strictEqual(lines.length, 3, started.output())
    assert.match(lines[0]!, /invalid configuration: MAX_LIVE_KEYS_PER_ORGANIZATION: /)
    assert.match(lines[1]!, /invalid configuration: ORG_RATE_LIMIT_BURST: /)
    assert.match(lines[2]!, /invalid configuration: MANUAL_SYNC_MIN_SECONDS: /)
  })
})
