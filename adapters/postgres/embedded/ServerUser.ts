/**
 * PostgreSQL refuses to run as root. When we are root, the embedded server runs as an unprivileged
 * `postgres` system user (created on first use), and everything it touches must be reachable by
 * that user: its binaries and its data directory. A checkout inside a private directory (mode 700,
 * say under /root or a fresh temporary directory) is not; then the binaries are copied, and the
 * data kept, under /var/lib/partner-receivables, and a warning says where.
 */
import { execFileSync } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { cp, mkdir, readFile, rename, rm, stat } from "node:fs/promises"
import { dirname, join, resolve } from "node:path"
import { Effect } from "effect"
import { EmbeddedPostgresError } from "./EmbeddedPostgresError.ts"

export interface ServerUser {
  readonly uid: number
  readonly gid: number
}

export const name = "postgres"

const relocationRoot = "/var/lib/partner-receivables"

const fail = (message: string) => new EmbeddedPostgresError({ message })

/** The user to run the server as: none when we are not root. */
export const serverUser = Effect.try({
  try: (): ServerUser | undefined => {
    if (process.getuid?.() !== 0) return undefined
    const id = (flag: string) => Number(execFileSync("id", [flag, name], { encoding: "utf8" }).trim())
    try {
      return { uid: id("-u"), gid: id("-g") }
    } catch {
      execFileSync("useradd", ["--system", "--user-group", "--no-create-home", name], { stdio: "ignore" })
      return { uid: id("-u"), gid: id("-g") }
    }
  },
  catch: (cause) => fail(`cannot run PostgreSQL as an unprivileged user: ${String(cause)}`)
})

/** The first directory above `path` that `user` may not enter, if any. */
const blockedAncestor = async (path: string, user: ServerUser) => {
  for (let current = dirname(resolve(path)); ; current = dirname(current)) {
    const info = await stat(current).catch(() => undefined)
    if (info !== undefined) {
      const bit = info.uid === user.uid ? 0o100 : info.gid === user.gid ? 0o010 : 0o001
      if ((info.mode & bit) === 0) return current
    }
    if (current === dirname(current)) return undefined
  }
}

const hashOf = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16)

/** `dataDir` when the server user can reach it; otherwise a directory of its own for it. */
export const reachableDataDir = (dataDir: string, user: ServerUser) =>
  Effect.promise(() => blockedAncestor(dataDir, user)).pipe(
    Effect.flatMap((blocked) => {
      if (blocked === undefined) return Effect.succeed(dataDir)
      // Named after the requested directory, so each project keeps its own cluster across starts.
      const relocated = join(relocationRoot, "data", hashOf(resolve(dataDir)))
      return Effect.logWarning(
        `the embedded PostgreSQL runs as "${name}", which cannot enter ${blocked}; its data is kept in ${relocated}`
      ).pipe(Effect.as(relocated))
    })
  )

interface Binaries {
  readonly initdb: string
  readonly postgres: string
}

// The package's native/ folder holds bin/, lib/ and share/; the binaries find the others
// relative to themselves, so a copy of the whole folder runs anywhere.
const copyInstallation = async (nativeDir: string, target: string) => {
  const staging = `${target}.${randomBytes(4).toString("hex")}`
  await mkdir(dirname(target), { recursive: true })
  await cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true })
  // Concurrent starts may copy at once: the first rename wins, the others drop their copy.
  await rename(staging, target).catch(() => rm(staging, { recursive: true, force: true }))
}

/** Binaries the server user can execute: the installed ones, or a copy of them. */
export const reachableBinaries = (installed: Binaries, user: ServerUser) =>
  Effect.tryPromise({
    try: async (): Promise<Binaries> => {
      if ((await blockedAncestor(installed.postgres, user)) === undefined) return installed
      const nativeDir = dirname(dirname(installed.postgres))
      const packageJson = await readFile(join(nativeDir, "..", "package.json"), "utf8")
      const version = (JSON.parse(packageJson) as { version: string }).version
      const target = join(relocationRoot, "postgres", `${version}-${process.platform}-${process.arch}`)
      const copied = { initdb: join(target, "bin", "initdb"), postgres: join(target, "bin", "postgres") }
      if (!(await stat(copied.postgres).catch(() => undefined))) await copyInstallation(nativeDir, target)
      return copied
    },
    catch: (cause) => fail(`cannot make the PostgreSQL binaries reachable for the "${name}" user: ${String(cause)}`)
  })
