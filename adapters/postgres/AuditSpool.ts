/**
 * Audit entries on disk, for the two moments the database cannot take them and memory must not
 * hold them: a stop while the database is away, and a backlog past what a process keeps in
 * memory. Each write is one file of JSON lines, synced before it counts as written; a later
 * process (or this one, once the database answers again) claims a file by renaming it, commits
 * its entries and only then deletes it. A process that dies while committing leaves its claim,
 * which the next one takes over once that process is gone: an entry may then be committed twice,
 * never lost.
 */
import { randomBytes } from "node:crypto"
import { mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"

/** The entries as their JSON objects, as `PgAuditLog` stores them. */
export type SpooledEntry = Record<string, unknown>

const spooled = /^audit-[0-9a-f]+\.jsonl$/
const claimed = /^(audit-[0-9a-f]+\.jsonl)\.(\d+)\.claimed$/

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Writes `entries` to a new file in `dir`, synced to disk before it returns. */
export const write = (dir: string, entries: ReadonlyArray<SpooledEntry>) =>
  Effect.tryPromise(async () => {
    await mkdir(dir, { recursive: true })
    const name = join(dir, `audit-${randomBytes(8).toString("hex")}.jsonl`)
    const temporary = `${name}.writing`
    const file = await open(temporary, "wx", 0o600)
    try {
      await file.writeFile(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""))
      await file.sync()
    } finally {
      await file.close()
    }
    // Visible under its name only once whole: a reader never claims half a file.
    await rename(temporary, name)
    return name
  })

/**
 * Files of `dir` this process now holds: the spooled ones it renamed to its own claim first, and
 * the claims of processes that are gone.
 */
const claim = (dir: string) =>
  Effect.promise(async () => {
    const names = await readdir(dir).catch(() => [] as Array<string>)
    const held: Array<string> = []
    for (const name of names) {
      const stale = claimed.exec(name)
      const original = spooled.test(name) ? name : stale !== null && !isAlive(Number(stale[2])) ? stale[1] : undefined
      if (original === undefined) continue
      const mine = join(dir, `${original}.${process.pid}.claimed`)
      // A rename is atomic: of two processes claiming one file, one finds it gone.
      if (
        await rename(join(dir, name), mine).then(
          () => true,
          () => false
        )
      )
        held.push(mine)
    }
    return held
  })

const readEntries = (path: string) =>
  Effect.promise(async () =>
    (await readFile(path, "utf8"))
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as SpooledEntry)
  )

/**
 * Commits every spooled file of `dir` with `commit` (one call per file), deleting each file once
 * its entries are committed; a file whose commit fails is released for a later try. How many
 * entries were committed.
 */
export const drain = <E>(dir: string, commit: (entries: ReadonlyArray<SpooledEntry>) => Effect.Effect<void, E>) =>
  Effect.gen(function* () {
    let committed = 0
    for (const path of yield* claim(dir)) {
      const entries = yield* readEntries(path)
      const done = yield* Effect.exit(commit(entries))
      if (done._tag === "Success") {
        yield* Effect.promise(() => unlink(path))
        committed += entries.length
      } else {
        yield* Effect.promise(() => rename(path, path.replace(/\.\d+\.claimed$/, "")).catch(() => undefined))
      }
    }
    return committed
  })
