/**
 * Audit entries on disk, for the two moments the database cannot take them and memory must not
 * hold them: a stop while the database is away, and a backlog past what a process keeps in
 * memory. Each write is one file of JSON lines, synced before it counts as written; a later
 * process (or this one, once the database answers again) claims a file by renaming it, commits
 * its entries and only then deletes it. A claim names a random id of the claiming process, not its
 * pid (in a container every start is pid 1), and is touched when made: one older than
 * `staleClaim` belongs to a process that died while committing, and is taken over. An entry may
 * then be committed twice, never lost. A file that cannot be read is set aside, never retried.
 */
import { randomBytes } from "node:crypto"
import { mkdir, open, readdir, readFile, rename, stat, unlink, utimes } from "node:fs/promises"
import { join } from "node:path"
import { Duration, Effect } from "effect"

/** The entries as their JSON objects, as `PgAuditLog` stores them. */
export type SpooledEntry = Record<string, unknown>

/** Files a spool holds at the most; past it, entries are refused (the caller logs them). */
export const maxFiles = 10_000

/** A claim older than this was left by a process that died committing it (a commit takes seconds). */
const staleClaim = Duration.minutes(10)

const spooled = /^audit-[0-9a-f]+\.jsonl$/
const claimed = /^(audit-[0-9a-f]+\.jsonl)\.[0-9a-f]+\.claimed$/

/** This process's name in its claims. */
const instance = randomBytes(6).toString("hex")

/** Writes `entries` to a new file in `dir`, synced to disk before it returns; fails past `maxFiles`. */
export const write = (dir: string, entries: ReadonlyArray<SpooledEntry>) =>
  Effect.tryPromise(async () => {
    await mkdir(dir, { recursive: true })
    if ((await readdir(dir)).length >= maxFiles) throw new Error(`the audit spool holds ${maxFiles} files`)
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

/** Files of `dir` this process now holds: spooled ones, and claims left by processes long gone. */
const claim = (dir: string) =>
  Effect.promise(async () => {
    const names = await readdir(dir).catch(() => [] as Array<string>)
    const held: Array<string> = []
    const now = Date.now()
    for (const name of names) {
      const stale = claimed.exec(name)
      const isStale =
        stale !== null &&
        (await stat(join(dir, name)).then(
          (info) => now - info.mtimeMs > Duration.toMillis(staleClaim),
          () => false
        ))
      const original = spooled.test(name) ? name : isStale ? stale![1] : undefined
      if (original === undefined) continue
      const mine = join(dir, `${original}.${instance}.claimed`)
      // A rename is atomic: of two processes claiming one file, one finds it gone.
      if (
        !(await rename(join(dir, name), mine).then(
          () => true,
          () => false
        ))
      )
        continue
      await utimes(mine, new Date(), new Date()).catch(() => undefined)
      held.push(mine)
    }
    return held
  })

const readEntries = (path: string) =>
  Effect.tryPromise(async () =>
    (await readFile(path, "utf8"))
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as SpooledEntry)
  )

const release = (path: string, to: string) => Effect.promise(() => rename(path, to).catch(() => undefined))

/**
 * Commits every spooled file of `dir` with `commit` (one call per file), deleting each file once
 * its entries are committed; a file whose commit fails is released for a later try, and one that
 * cannot be read is renamed `.unreadable` and logged. How many entries were committed.
 */
export const drain = <E>(dir: string, commit: (entries: ReadonlyArray<SpooledEntry>) => Effect.Effect<void, E>) =>
  Effect.gen(function* () {
    let committed = 0
    for (const path of yield* claim(dir)) {
      const original = path.replace(/\.[0-9a-f]+\.claimed$/, "")
      const entries = yield* Effect.exit(readEntries(path))
      if (entries._tag === "Failure") {
        yield* release(path, `${original}.unreadable`)
        yield* Effect.logError("an audit spool file could not be read: set aside").pipe(
          Effect.annotateLogs({ file: `${original}.unreadable` })
        )
        continue
      }
      const done = yield* Effect.exit(commit(entries.value))
      if (done._tag === "Success") {
        yield* Effect.promise(() => unlink(path).catch(() => undefined))
        committed += entries.value.length
      } else {
        yield* release(path, original)
      }
    }
    return committed
  })
