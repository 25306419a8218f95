/**
 * An inbox in a local directory (a mount, a synced folder). Only a regular file is read: a FIFO,
 * a device or a directory would block a read forever or never end. Opening never blocks (a FIFO
 * opens without a writer) and the file's kind is read from the opened file itself, so nothing can
 * swap it in between. A local directory is cheap to read again, so it remembers nothing: every
 * fetch reads every file, as the conformance kit expects of a fetch.
 */
import { constants, type Stats } from "node:fs"
import { open, readdir } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Stream } from "effect"
import { permanentFailure, retryableFailure } from "../../../core/receivables/ports/PortalConnector.ts"
import { forgetful, type Inbox } from "./Inbox.ts"

const kindOf = (stats: Stats) =>
  stats.isDirectory()
    ? "a directory"
    : stats.isFIFO()
      ? "a named pipe (FIFO)"
      : stats.isSocket()
        ? "a socket"
        : stats.isCharacterDevice() || stats.isBlockDevice()
          ? "a device"
          : "not a regular file"

/** What a file is instead of a regular file, as the reason it is not read. */
export const notRegularReason = (file: string, what: string) => `${file} is ${what}: only regular files are read`

const chunkBytes = 64 * 1024

/** The inbox in `directory`; `place` names it in messages (`the inbox /srv/cxml`). */
export const localInbox = (directory: string, place: string): Inbox => ({
  place,
  list: Effect.map(
    Effect.tryPromise({
      try: () => readdir(directory),
      catch: () => permanentFailure(`${place} cannot be read`)
    }),
    (files) => files.sort().map((name) => ({ name, version: "" }))
  ),
  open: Effect.fnUntraced(function* (file: string) {
    // A file that cannot be opened (gone, locked, being replaced) may be readable at the next run.
    const handle = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => open(join(directory, file), constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)),
        catch: () => retryableFailure(`${file} cannot be read`)
      }),
      (opened) => Effect.promise(() => opened.close())
    )
    const stats = yield* Effect.tryPromise({
      try: () => handle.stat(),
      catch: () => retryableFailure(`${file} cannot be read`)
    })
    if (!stats.isFile()) return { _tag: "Unread", reason: notRegularReason(file, kindOf(stats)) } as const
    const bytes = Stream.fromAsyncIterable(
      handle.createReadStream({ highWaterMark: chunkBytes, autoClose: false }),
      () => retryableFailure(`${file} cannot be read`)
    )
    return { _tag: "Regular", size: stats.size, modifiedAt: stats.mtimeMs, bytes } as const
  }),
  ...forgetful,
  maxFiles: undefined
})
