/**
 * Debian's PgBouncer in transaction mode in front of a test server, as a child process of the test
 * killed when its scope closes: a generated ini on a free loopback port, `auth_type = trust` (the
 * server's own password stays in the ini, which only PgBouncer reads), and a small server pool so
 * that clients really take turns on server connections. Missing PgBouncer fails, never skips.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { freePort } from "./ports.ts"

// Where Debian puts it, then the PATH; CI (`.ci/run`) installs the Debian package when missing.
const candidates = ["/usr/sbin/pgbouncer", "pgbouncer"]

const findBinary = (): string => {
  for (const candidate of candidates) {
    try {
      execFileSync(candidate, ["--version"], { stdio: "ignore" })
      return candidate
    } catch {}
  }
  throw new Error(
    "pgbouncer was not found (looked for /usr/sbin/pgbouncer and on PATH): the pooler suite needs it; " +
      "install Debian's package (apt-get install -y --no-install-recommends pgbouncer), as .ci/run does"
  )
}

export interface PgBouncer {
  /** `url` with PgBouncer's address in place of the server's: same user and database, no password. */
  readonly pooled: (url: string) => string
  readonly output: () => string
}

export interface PgBouncerOptions {
  /** Server connections per database and user: the pool every client shares (default 4). */
  readonly poolSize?: number
  /** Where it listens (default: a free port), so that a restarted pooler takes its predecessor's address. */
  readonly port?: number
}

const iniValue = (value: string) => value.replace(/[\s'"\\]/g, (char) => `\\${char}`)

const ini = (server: URL, port: number, dir: string, poolSize: number) => `[databases]
* = host=${server.hostname} port=${server.port} user=${iniValue(decodeURIComponent(server.username))} password=${iniValue(decodeURIComponent(server.password))}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, "userlist.txt")}
pool_mode = transaction
max_client_conn = 400
default_pool_size = ${poolSize}
reserve_pool_size = 0
server_reset_query =
server_check_delay = 0
`

const accepting = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

const waitAccepting = async (port: number, child: ChildProcess, output: () => string) => {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited at start: ${output()}`)
    if (await accepting(port)) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`pgbouncer did not listen on ${port} within 10 s: ${output()}`)
}

/** PgBouncer in front of the server of `serverUrl` (any of its databases), for the scope. */
export const start = (serverUrl: string, options: PgBouncerOptions = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const binary = findBinary()
      const dir = await mkdtemp(join(tmpdir(), "receivables-pgbouncer-"))
      // PgBouncer refuses to run as root; it then runs as nobody, who must read its files.
      const asRoot = process.getuid?.() === 0
      if (asRoot) await chmod(dir, 0o755)
      const port = options.port ?? (await freePort())
      const server = new URL(serverUrl)
      // Trust still wants the user listed; its password there is never asked for.
      await writeFile(join(dir, "userlist.txt"), `"${decodeURIComponent(server.username)}" ""\n`, { mode: 0o644 })
      await writeFile(join(dir, "pgbouncer.ini"), ini(server, port, dir, options.poolSize ?? 4), { mode: 0o644 })
      const child = spawn(binary, [...(asRoot ? ["-u", "nobody"] : []), join(dir, "pgbouncer.ini")], {
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      child.stdout?.on("data", (chunk) => {
        output += chunk
      })
      child.stderr?.on("data", (chunk) => {
        output += chunk
      })
      await waitAccepting(port, child, () => output)
      const pooled = (url: string) => {
        const parsed = new URL(url)
        parsed.hostname = "127.0.0.1"
        parsed.port = String(port)
        parsed.password = ""
        return parsed.toString()
      }
      return { child, dir, bouncer: { pooled, output: () => output } satisfies PgBouncer }
    }),
    ({ child, dir }) =>
      Effect.promise(async () => {
        const exited = new Promise((resolve) => child.once("exit", resolve))
        if (child.exitCode === null && child.kill("SIGKILL")) await exited
        await rm(dir, { recursive: true, force: true })
      })
  ).pipe(Effect.map(({ bouncer }) => bouncer))
